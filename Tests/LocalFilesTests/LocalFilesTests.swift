import Foundation
import Testing
import LDS
import LocalFiles
import CLinux
#if canImport(Glibc)
import Glibc
#endif

@Suite struct XDGDirectoriesTests {
    let home = ["HOME": "/home/ada"]

    @Test func unsetEmptyOrRelativeMeanTheDefaults() {
        for value in [nil, "", "relative/config", "./x"] as [String?] {
            var env = home
            env["XDG_CONFIG_HOME"] = value
            env["XDG_CACHE_HOME"] = value
            env["XDG_DATA_HOME"] = value
            #expect(XDGDirectories.configHome(env).path == "/home/ada/.config", "XDG_CONFIG_HOME=\(value ?? "unset")")
            #expect(XDGDirectories.cacheHome(env).path == "/home/ada/.cache")
            #expect(XDGDirectories.dataHome(env).path == "/home/ada/.local/share")
        }
    }

    @Test func anAbsoluteValueIsUsed() {
        let env = home.merging(["XDG_CONFIG_HOME": "/srv/conf", "XDG_CACHE_HOME": "/var/cache/ada"]) { $1 }
        #expect(XDGDirectories.configHome(env).path == "/srv/conf")
        #expect(XDGDirectories.cacheHome(env).path == "/var/cache/ada")
    }
}

/// Modes are checked with the umask at 0, where a careless write would leave 0666/0777.
@Suite(.serialized) struct PrivateFilesTests {
    func mode(_ url: URL) -> mode_t {
        var status = stat()
        stat(url.path, &status)
        return status.st_mode & 0o777
    }

    func withOpenUmask<T>(_ body: () throws -> T) rethrows -> T {
        let previous = umask(0)
        defer { umask(previous) }
        return try body()
    }

    func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("private-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func filesAre0600AndFolders0700WhateverTheUmask() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        try withOpenUmask {
            let folder = root.appendingPathComponent("a/b")
            try PrivateFiles.createFolder(folder)
            #expect(mode(folder) == 0o700)
            let file = folder.appendingPathComponent("f")
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644]))
            try PrivateFiles.write(Array("new".utf8), to: file)
            #expect(mode(file) == 0o600, "an existing 0644 file becomes 0600")
            #expect(try String(contentsOf: file, encoding: .utf8) == "new")
            try PrivateFiles.replace(file, with: Array("newer".utf8))
            #expect(mode(file) == 0o600)
            #expect(try String(contentsOf: file, encoding: .utf8) == "newer")
        }
    }

    @Test func anExistingSharedFolderKeepsItsMode() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        chmod(root.path, 0o1777)
        try PrivateFiles.createFolder(root)
        #expect(mode(root) == 0o777, "a folder the person chose is not narrowed")
    }

    @Test func aDumpFolderIsPrivate() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let dump = root.appendingPathComponent("dump")
        let manifest = DumpManifest(toolVersion: "test", createdAt: "2026-11-26T00:00:00Z", reader: "r", accessProtocol: "BAC",
                                    extendedLength: false, apdus: 0, seconds: 0, files: [:])
        try withOpenUmask {
            try DumpFolder.write(files: [.dataGroup(1): [0x61, 0x00]], manifest: manifest, to: dump)
        }
        #expect(mode(dump) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: dump.path)
        #expect(names.sorted() == ["DG1.bin", "manifest.json"])
        for name in names { #expect(mode(dump.appendingPathComponent(name)) == 0o600, "\(name)") }
    }

    @Test func aWriteIntoAMissingFolderNamesThePath() {
        #expect(throws: PrivateFiles.WriteError.self) {
            try PrivateFiles.write([1], to: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/f"))
        }
    }
}

/// Foundation's and the OS's errors come out in plain words, never as a domain and a code.
@Suite struct SystemErrorTextTests {
    @Test func foundationErrorsAreToldInTheOSWords() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file")
        var caught: Error?
        do { _ = try Data(contentsOf: missing) } catch { caught = error }
        let error = try #require(caught)
        #expect(String(describing: error).contains("Error Domain="))  // what the user saw before
        let text = try #require(SystemErrorText.describe(error))
        #expect(text == "\(missing.path): No such file or directory")
        #expect(SystemErrorText.describe(POSIXError(.EACCES)) == "Permission denied")
    }

    @Test func ourOwnErrorsAreLeftAlone() {
        struct Ours: Error {}
        #expect(SystemErrorText.describe(Ours()) == nil)
        #expect(SystemErrorText.describe(PrivateFiles.WriteError(path: "/x", reason: "Permission denied")) == nil)
    }
}

/// Work spread over threads made for the call, each with a descriptor table of its own.
@Suite struct WorkerThreadsTests {
    @Test func resultsComeInTheOrderOfTheElements() {
        let numbers = Array(0..<5000)
        #expect(WorkerThreads.map(numbers) { $0 &* 31 &+ 7 } == numbers.map { $0 &* 31 &+ 7 })
        #expect(WorkerThreads.map([Int]()) { $0 }.isEmpty)
        #expect(WorkerThreads.map(["one"]) { $0 + "!" } == ["one!"])
    }

    /// A descriptor a worker opens lives in the worker's own table: the caller does not have it
    /// (where the system refuses `unshare`, the workers share the caller's table, and it does).
    @Test func aWorkersDescriptorsAreItsOwn() {
        // Moved to 1000 and up, where the caller has nothing open by chance.
        let descriptors = WorkerThreads.map([0, 1, 2, 3]) { _ -> Int32 in
            let opened = open("/dev/null", O_RDONLY | O_CLOEXEC)
            defer { close(opened) }
            return fcntl(opened, F_DUPFD_CLOEXEC, 1000)
        }
        for descriptor in descriptors {
            #expect(descriptor >= 1000)
            let openHere = fcntl(descriptor, F_GETFD) != -1
            #expect(openHere == !WorkerThreads.hadOwnDescriptorTables)
            if openHere { close(descriptor) }
        }
        // Where a thread of this process may have a table of its own, the workers had one.
        let asked = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var refused = true
        Thread {
            refused = passport_unshare_descriptors() != 0
            asked.signal()
        }.start()
        asked.wait()
        #expect(WorkerThreads.hadOwnDescriptorTables == !refused)
    }
}
