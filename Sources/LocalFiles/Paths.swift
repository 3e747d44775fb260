/// Path text as NSString spelled it (FoundationEssentials has no NSString): joining a folder and
/// a name, and taking a path apart, without making a relative path absolute as URL does.
public enum Paths {
    /// `folder/name` (just `name` when `folder` is empty).
    public static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder part: "a/b/c.txt" → "a/b", "c.txt" → "", "/c" → "/".
    public static func parent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last part: "a/b/c.txt" → "c.txt".
    public static func lastComponent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed == "/" { return trimmed }
        return trimmed.lastIndex(of: "/").map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
    }

    /// The last part without its extension: "a/mrz.traineddata" → "mrz" (".hidden" stays).
    public static func stem(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
