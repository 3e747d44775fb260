/// The toolkit's version: the VERSION file at the top of the source tree (the one place it is
/// set; the Debian package and its changelog read it too), stamped in at build time with the
/// git commit when built from a checkout.
public enum PassportKitVersion {
    public static let version = BuildVersion.version
    /// The commit the binary was built from (with "-modified" for uncommitted changes), if known.
    public static let commit = BuildVersion.commit
    /// What `--version` prints: "0.2.0" or "0.2.0 (commit 0123456789ab)".
    public static var description: String { commit.map { "\(version) (commit \($0))" } ?? version }
}
