import Foundation
import Testing
import TestSupport

/// pcsc-lite, libnfc, libeac, Leptonica and libsecret are opened by the code that needs them, not
/// linked (docs/ARCHITECTURE.md, "What a command loads"). Each is made absent here through its
/// override variable, the way the package checks do: commands that do not use it run, and those
/// that do exit 2 naming the soname and the Debian package.
@Suite struct LibrariesOpenedWhenUsed {
    static let absentSonames = ["PASSPORT_PCSC_LIBRARY": "libpcsclite-absent.so.1", "PASSPORT_NFC_LIBRARY": "libnfc-absent.so.6",
                                "PASSPORT_EAC_LIBRARY": "libeac-absent.so.3", "PASSPORT_LEPTONICA_LIBRARY": "liblept-absent.so.5",
                                "PASSPORT_SECRET_LIBRARY": "libsecret-absent.so.0"]
    static let dump = TestPaths.fixtures.appendingPathComponent("passport").path
    static let anchors = ["--no-default-trust", "--csca", TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path]
    static let mrz = (try? String(contentsOfFile: "\(dump)/mrz.txt", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    /// A session bus address (nothing listens there): the key store then opens libsecret.
    static let sessionBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "PASSPORT_KEYRING": "on"]

    /// verify, show, convert, trust, prove, and issue → present → verify-vp with the keyring off
    /// (as on a machine without a desktop session), none of the five libraries there.
    @Test func commandsThatNeedNoneOfThemRunWithoutThem() throws {
        let home = Harness.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let env = Self.absentSonames.merging(["XDG_CONFIG_HOME": home.path, "XDG_CACHE_HOME": home.path, "PASSPORT_KEYRING": "off"]) { $1 }
        let credential = home.appendingPathComponent("credential").path
        let commands = [["--version"], ["verify", Self.dump] + Self.anchors, ["show", Self.dump],
                        ["convert", Self.dump, home.appendingPathComponent("converted").path], ["trust", "list"],
                        ["prove", Self.dump, "--export", home.appendingPathComponent("zk").path] + Self.anchors,
                        ["issue", Self.dump, "--out", credential, "--yes"] + Self.anchors]
        for arguments in commands {
            let r = try Harness.passport(arguments, environment: env)
            #expect(r.status == 0, "passport \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        }
        let presented = try Harness.passport(["present", credential, "--aud", "https://a.example", "--nonce", "n-1", "--yes"], environment: env)
        try #require(presented.status == 0, "present: \(presented.stderr)")
        let token = presented.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try Harness.passport(["verify-vp", token, "--aud", "https://a.example", "--nonce", "n-1", "--require-level", "L1"], environment: env)
        #expect(verified.status == 0, "verify-vp: \(verified.stderr)")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let variable: String
        let packages: [String]
        var environment: [String: String] = [:]
        var testDescription: String { "\(arguments.prefix(2).joined(separator: " ")) without \(variable)" }
    }

    /// Where nothing may be written (the library is missing before anything is).
    static let out = FileManager.default.temporaryDirectory.appendingPathComponent("passport-absent-\(UUID().uuidString)").path
    static let cases: [Case] = [
        Case(arguments: ["scan", "--mrz", mrz, "--out", out], variable: "PASSPORT_PCSC_LIBRARY", packages: ["libpcsclite1"]),
        Case(arguments: ["scan", "--nfc", "--mrz", mrz, "--out", out], variable: "PASSPORT_NFC_LIBRARY", packages: ["libnfc6"]),
        Case(arguments: ["scan", "--eac", TestPaths.fixtures.appendingPathComponent("pki/eac/terminal").path, "--mrz", mrz, "--out", out],
             variable: "PASSPORT_EAC_LIBRARY", packages: ["libeac3"]),
        Case(arguments: ["photo", dump, "--out", out + ".png"], variable: "PASSPORT_LEPTONICA_LIBRARY",
             packages: ["liblept5", "libleptonica6"]),
        Case(arguments: ["ocr", TestPaths.fixtures.appendingPathComponent("ocr/card-td1.jpg").path], variable: "PASSPORT_LEPTONICA_LIBRARY",
             packages: ["liblept5", "libleptonica6"]),
        Case(arguments: ["keys", "status"], variable: "PASSPORT_SECRET_LIBRARY", packages: ["libsecret-1-0"], environment: sessionBus),
        Case(arguments: ["present", "credential-file", "--aud", "https://a.example", "--nonce", "n"], variable: "PASSPORT_SECRET_LIBRARY",
             packages: ["libsecret-1-0"], environment: sessionBus),
    ]

    /// Only the one library made absent: the command says which soname is missing, which package
    /// to install, and exits 2; with --json the code is library_missing.
    @Test(arguments: cases)
    func aCommandWithoutItsLibraryNamesThePackage(_ test: Case) throws {
        let soname = try #require(Self.absentSonames[test.variable])
        let env = test.environment.merging([test.variable: soname]) { $1 }
        let r = try Harness.passport(test.arguments, environment: env)
        #expect(r.status == 2, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("\(soname) could not be loaded"), "\(r.stderr)")
        #expect(test.packages.contains { r.stderr.contains("Install it: sudo apt install \($0)\n") }, "\(r.stderr)")
        let json = try Harness.passport(test.arguments + ["--json"], environment: env)
        #expect(json.status == 2)
        #expect((json.json?["error"] as? [String: Any])?["code"] as? String == "library_missing", "\(json.stdout)")
    }

    /// `readers` lists what it can: pcsc-lite absent is a note, like pcscd not running.
    @Test func readersNotesAnAbsentPCSCLite() throws {
        let r = try Harness.passport(["readers", "--json"], environment: ["PASSPORT_PCSC_LIBRARY": "libpcsclite-absent.so.1"])
        #expect(r.status == 0, "\(r.stderr)")
        let problems = try #require(r.json?["problems"] as? [String])
        #expect(problems.contains { $0.contains("libpcsclite-absent.so.1 could not be loaded") && $0.contains("sudo apt install libpcsclite1") })
    }
}

/// libsecret and GLib are declared in Sources/CLibSecret by hand (GLib's headers need include
/// paths a C target cannot have): those declarations must be the libraries' own.
@Suite struct LibSecretDeclarations {
    @Test func theShimDeclaresWhatLibsecretAndGLibDeclare() throws {
        let header = TestPaths.projectRoot.appendingPathComponent("Sources/CLibSecret/include/CLibSecret.h").path
        let check = FileManager.default.temporaryDirectory.appendingPathComponent("secret-declarations-\(UUID().uuidString).c")
        defer { try? FileManager.default.removeItem(at: check) }
        try Data("""
        #include <stddef.h>
        #include <libsecret/secret.h>
        // gcc knows no nullability qualifiers; they do not change a type.
        #define _Nullable
        #define _Nonnull
        #define PASSPORT_SECRET_TYPES_FROM_GLIB 1
        #include "\(header)"
        #define SAME(name) _Static_assert(__builtin_types_compatible_p(__typeof__(((PassportSecret *)0)->name), __typeof__(&name)), \
            #name " is declared otherwise by libsecret or GLib");
        PASSPORT_SECRET_FUNCTIONS(SAME)
        struct declared_gerror { PASSPORT_GERROR_FIELDS };
        _Static_assert(sizeof(struct declared_gerror) == sizeof(GError), "GError's size");
        _Static_assert(offsetof(struct declared_gerror, code) == offsetof(GError, code), "GError's code");
        _Static_assert(offsetof(struct declared_gerror, message) == offsetof(GError, message), "GError's message");

        """.utf8).write(to: check)
        let r = try Harness.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cc -fsyntax-only $(pkg-config --cflags libsecret-1) \"$0\"", check.path])
        #expect(r.status == 0, "\(r.stderr)")
    }
}
