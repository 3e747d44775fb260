import CLibSecret
import LibraryLoading

/// libsecret and the GLib under it, opened when the key store first looks for the system keyring
/// on a session bus (not linked: a machine without a desktop runs every command without them).
enum SecretLibrary {
    static let library = SystemLibrary(name: "libsecret", purpose: "Keeping the device key in the system keyring",
                                       builtWith: passport_secret_soname(), override: "PASSPORT_SECRET_LIBRARY",
                                       package: passport_secret_package())
    private static let opened = library.open(passport_secret_load)

    /// Its functions; throws `MissingLibrary` naming the package when it is not installed.
    static func functions() throws -> PassportSecret { try opened.get() }
}
