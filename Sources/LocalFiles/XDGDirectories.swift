import FoundationEssentials

/// The XDG Base Directory specification's folders: `$XDG_CONFIG_HOME`, `$XDG_CACHE_HOME` and
/// `$XDG_DATA_HOME` when set to an absolute path; when unset, empty or relative (the
/// specification says such a value is invalid and must be ignored), `~/.config`, `~/.cache` and
/// `~/.local/share`.
public enum XDGDirectories {
    public static func configHome(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        folder("XDG_CONFIG_HOME", default: ".config", environment)
    }

    public static func cacheHome(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        folder("XDG_CACHE_HOME", default: ".cache", environment)
    }

    public static func dataHome(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        folder("XDG_DATA_HOME", default: ".local/share", environment)
    }

    /// `$HOME`, else the home folder of the user in the password database.
    public static func home(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true)
    }

    private static func folder(_ variable: String, default relative: String, _ environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") { return URL(fileURLWithPath: value, isDirectory: true) }
        return home(environment).appendingPathComponent(relative, isDirectory: true)
    }
}
