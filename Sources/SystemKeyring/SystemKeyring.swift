import CLibSecret
import Credentials
import FoundationEssentials
import Glibc

/// The key store's device key in the desktop's keyring (the freedesktop Secret Service: GNOME
/// Keyring, KWallet, KeePassXC), in the default collection, which the login unlocks. One item
/// per key-store folder, so two stores do not share a key. Nothing here prints the secret.
public final class SystemKeyring: DeviceKeyVault {
    public static let schemaName = "org.passport-toolkit.DeviceKey"
    private let secret: PassportSecret
    private let service: OpaquePointer

    /// The Secret Service on this session's D-Bus, or nil when there is none (no session bus,
    /// or nothing provides the service): the caller then falls back to the key file. With a
    /// session bus, libsecret is opened: throws `MissingLibrary` naming its package when it is
    /// absent, rather than fall back to a weaker key file where the keyring was meant.
    public static func connect() throws -> SystemKeyring? {
        // No session bus: say so at once rather than let GLib try to autolaunch one.
        let env = ProcessInfo.processInfo.environment
        let runtimeBus = env["XDG_RUNTIME_DIR"].map { "\($0)/bus" }
        guard env["DBUS_SESSION_BUS_ADDRESS", default: ""].isEmpty == false || runtimeBus.map(FileManager.default.fileExists) == true else { return nil }
        let secret = try SecretLibrary.functions()
        var error: UnsafeMutablePointer<GError>?
        guard let service = secret.secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, nil, &error) else {
            secret.g_clear_error(&error)
            return nil
        }
        // A bus without a provider answers get_sync but fails the first call: ask for the default
        // collection now, so that "no service" is known here and not at the first key.
        var probe: UnsafeMutablePointer<GError>?
        let collection = secret.secret_collection_for_alias_sync(service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, nil, &probe)
        let noService = probe.map { $0.pointee.domain == secret.g_dbus_error_quark() } ?? false
        secret.g_clear_error(&probe)
        if let collection { secret.g_object_unref(UnsafeMutableRawPointer(collection)) }
        if noService {
            secret.g_object_unref(UnsafeMutableRawPointer(service))
            return nil
        }
        return SystemKeyring(secret: secret, service: service)
    }

    private init(secret: PassportSecret, service: OpaquePointer) {
        self.secret = secret
        self.service = service
    }
    deinit { secret.g_object_unref(UnsafeMutableRawPointer(service)) }

    public var name: String { "the system keyring (Secret Service, default collection)" }

    public func load(for folder: URL) throws -> [UInt8]? {
        try ensureUnlocked()
        var error: UnsafeMutablePointer<GError>?
        let value = withAttributes(folder) { secret.secret_service_lookup_sync(service, nil, $0, nil, &error) }
        try check(error, "looking up the device key")
        guard let value else { return nil }
        defer { secret.secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: Int = 0
        guard let text = secret.secret_value_get(value, &length) else { return nil }
        let encoded = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
        guard let key = Data(base64Encoded: encoded), key.count == 32 else {
            throw CredentialError.keyStore("the device key in the system keyring (\(SystemKeyring.schemaName), folder \(folder.path)) is damaged")
        }
        return [UInt8](key)
    }

    public func store(_ key: [UInt8], for folder: URL) throws {
        try ensureUnlocked()
        let encoded = Data(key).base64EncodedString()
        let value = encoded.withCString { secret.secret_value_new($0, -1, "text/plain") }
        defer { secret.secret_value_unref(UnsafeMutableRawPointer(value)) }
        var error: UnsafeMutablePointer<GError>?
        let stored = withAttributes(folder) {
            secret.secret_service_store_sync(service, nil, $0, SECRET_COLLECTION_DEFAULT, "passport toolkit key store \(folder.path)", value, nil, &error)
        }
        try check(error, "storing the device key")
        guard stored != 0 else { throw CredentialError.keyStore("the system keyring did not store the device key") }
    }

    /// The default collection unlocked: asks the Secret Service to unlock it (on a desktop that
    /// shows the keyring's own unlock prompt); still locked afterwards is an error, and nothing
    /// is read, written or signed.
    private func ensureUnlocked() throws {
        var error: UnsafeMutablePointer<GError>?
        guard let collection = secret.secret_collection_for_alias_sync(service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, nil, &error) else {
            try check(error, "opening the default collection")
            throw CredentialError.keyStore("the system keyring has no default collection (login keyring): create one with your keyring manager (Seahorse, KWalletManager), or set PASSPORT_KEYRING=off")
        }
        defer { secret.g_object_unref(UnsafeMutableRawPointer(collection)) }
        guard secret.secret_collection_get_locked(collection) != 0 else { return }
        let objects = secret.g_list_append(nil, UnsafeMutableRawPointer(collection))
        defer { secret.g_list_free(objects) }
        var unlockError: UnsafeMutablePointer<GError>?
        // The count of objects unlocked, not the collection's Locked property: that is a cached
        // D-Bus property, which can still say locked right after an unlock.
        let unlocked = secret.secret_service_unlock_sync(service, objects, nil, nil, &unlockError)
        secret.g_clear_error(&unlockError)
        guard unlocked > 0 else { throw CredentialError.keyringLocked }
    }

    private func check(_ error: UnsafeMutablePointer<GError>?, _ step: String) throws {
        guard let error else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "no reason given"
        var owned: UnsafeMutablePointer<GError>? = error
        secret.g_clear_error(&owned)
        throw CredentialError.keyStore("the system keyring failed \(step): \(message)")
    }

    /// The item's attributes: the schema name (as libsecret's own schemas record it) and the folder.
    private func withAttributes<R>(_ folder: URL, _ body: (OpaquePointer) -> R) -> R {
        let table = secret.g_hash_table_new(secret.g_str_hash, secret.g_str_equal)
        defer { secret.g_hash_table_unref(table) }
        let pairs = [("xdg:schema", SystemKeyring.schemaName), ("folder", folder.standardizedFileURL.path)]
        let strings = pairs.flatMap { [strdup($0.0)!, strdup($0.1)!] }
        defer { strings.forEach { free($0) } }
        for index in stride(from: 0, to: strings.count, by: 2) {
            _ = secret.g_hash_table_insert(table, UnsafeMutableRawPointer(strings[index]), UnsafeMutableRawPointer(strings[index + 1]))
        }
        return body(table)
    }
}
