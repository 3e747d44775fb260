import Credentials
import FoundationEssentials
import TokenKeys

/// The holder key: present, and what protects it (keyring, passphrase, token, or only the file
/// `device.key`, which anyone who can read the key store can use).
enum KeyStoreChecks {
    static func checks(_ store: KeyStore, weakKeyFix: String) -> [DoctorCheck] {
        let status = store.status()
        let token: HolderToken?
        do { token = try HolderToken.recorded(in: store.folder) } catch {
            return [DoctorCheck("keys", "holder key", .fail, "\(error)", fix: "passport keys init --pkcs11 MODULE")]
        }
        if let token {
            let present = (try? token.isPresent()) ?? false
            return [DoctorCheck("keys", "holder key", present ? .ok : .warn,
                                "on token \"\(token.tokenLabel)\" (serial \(token.tokenSerial)), \(present ? "plugged in" : "not found now") through \(token.module)",
                                fix: present ? nil : "plug the token in before issuing or presenting a credential")]
        }
        guard let did = status.holderDID else {
            return [DoctorCheck("keys", "holder key", status.weak ? .warn : .ok, "none yet in \(store.folder.path): the first `passport issue` makes one"
                                + (status.weak ? ", protected by the file device.key only (whoever can read the folder can use it)" : ""),
                                fix: status.weak ? weakKeyFix : nil)]
        }
        let protection = status.weak ? "only by the file device.key (whoever can read the folder can use it)"
            : status.newKeys == "passphrase" ? "by a passphrase" : "by the system keyring"
        return [DoctorCheck("keys", "holder key", status.weak ? .warn : .ok, "\(did) in \(store.folder.path), protected \(protection)",
                            fix: status.weak ? weakKeyFix : nil)]
    }
}
