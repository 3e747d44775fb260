import CLibraryLoader

/// A C library opened with dlopen by the code that first needs it, not linked, so that a command
/// which does not use it starts and runs without it (docs/ARCHITECTURE.md, "What a command loads").
public struct SystemLibrary: Sendable {
    /// How people call it: "pcsc-lite".
    public let name: String
    /// What needs it, as the start of a sentence: "Talking to card readers through PC/SC".
    public let purpose: String
    /// The soname opened: the one of the version built against, or the override's.
    public let soname: String
    /// The Debian package that holds it, in the release this program was built for.
    public let package: String

    /// `builtWith` is the soname of the headers' version; the environment variable `override`
    /// replaces it when set (tests and the package checks name a library that is not there).
    public init(name: String, purpose: String, builtWith: UnsafePointer<CChar>, override: String, package: UnsafePointer<CChar>) {
        self.init(name: name, purpose: purpose, soname: String(cString: passport_library_soname(override, builtWith)),
                  package: String(cString: package))
    }

    private init(name: String, purpose: String, soname: String, package: String) {
        self.name = name
        self.purpose = purpose
        self.soname = soname
        self.package = package
    }

    /// The same library under another soname (tests: one that is not there).
    public func withSoname(_ other: String) -> SystemLibrary {
        SystemLibrary(name: name, purpose: purpose, soname: other, package: package)
    }

    /// Opens the library through its C loader, which takes the soname and fills the table it is
    /// given with the library's functions (1), or writes the reason into the buffer (0).
    public func open<Table>(_ load: (UnsafePointer<CChar>, UnsafeMutablePointer<Table>, UnsafeMutablePointer<CChar>, Int) -> Int32) -> Result<Table, MissingLibrary> {
        // Zeroed storage for the C struct (its function pointers may be declared non-null, so it
        // has no empty value in Swift to start from).
        let table = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Table>.size, alignment: MemoryLayout<Table>.alignment)
        defer { table.deallocate() }
        table.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<Table>.size)
        var reason = [CChar](repeating: 0, count: 512)
        let loaded = soname.withCString { load($0, table.assumingMemoryBound(to: Table.self), &reason, reason.count) }
        guard loaded == 1 else { return .failure(MissingLibrary(self, reason: Self.text(reason))) }
        return .success(table.load(as: Table.self))
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A library that a command needs is not on this machine (exit 2, `library_missing`): says which
/// soname could not be opened and which package to install, as Tesseract's message does.
public struct MissingLibrary: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public let purpose: String
    public let soname: String
    public let package: String
    /// The loader's words: "libnfc.so.6 could not be loaded (libnfc.so.6: cannot open shared object file: …)".
    public let reason: String

    init(_ library: SystemLibrary, reason: String) {
        name = library.name
        purpose = library.purpose
        soname = library.soname
        package = library.package
        self.reason = reason
    }

    public var description: String {
        "\(purpose) needs \(name), and \(reason). Install it: sudo apt install \(package)"
    }
}
