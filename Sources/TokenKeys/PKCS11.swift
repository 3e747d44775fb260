import CPKCS11
import FoundationEssentials
import Glibc
import TextSupport

/// A PKCS#11 error a person can act on: which step, what the token said.
public enum TokenError: Error, CustomStringConvertible, Equatable {
    case moduleUnloadable(path: String, why: String)
    case noToken(String)
    case tokenAbsent(label: String, serial: String)
    case wrongPIN(token: String, detail: String)
    case pinLocked(token: String)
    case noPIN(String)
    case keyMissing(token: String, label: String)
    case notP256(token: String, label: String)
    case keyChanged(token: String)
    case holderExists(String)
    case failed(step: String, rv: UInt)

    public var description: String {
        switch self {
        case .moduleUnloadable(let path, let why):
            return "Cannot load the PKCS#11 module \(path): \(why). Give the token's module, e.g. /usr/lib/x86_64-linux-gnu/libykcs11.so (YubiKey), opensc-pkcs11.so (smart cards), /usr/lib/softhsm/libsofthsm2.so."
        case .noToken(let why): return "No token to use: \(why)."
        case .tokenAbsent(let label, let serial):
            return "The token \"\(label)\" (serial \(serial)) that holds the holder key is not present: insert it (or plug it in) and try again. Nothing was signed."
        case .wrongPIN(let token, let detail): return "The token \"\(token)\" refused the PIN (\(detail)). Nothing was signed."
        case .pinLocked(let token): return "The PIN of token \"\(token)\" is locked after too many wrong tries: unblock it with the token's own tool (PUK or SO PIN). Nothing was signed."
        case .noPIN(let why): return "No PIN for the token: \(why)."
        case .keyMissing(let token, let label): return "The token \"\(token)\" holds no private key labelled \"\(label)\" (was it deleted or reset?). Nothing was signed."
        case .notP256(let token, let label): return "The key \"\(label)\" on token \"\(token)\" is not a P-256 (prime256v1) EC key; did:key holder keys are P-256."
        case .keyChanged(let token): return "The key on token \"\(token)\" is not the one recorded as the holder key (its public key differs). Nothing was signed."
        case .holderExists(let did):
            return "A holder key already exists in the key store (\(did)); credentials issued under it would no longer be presentable. Give --replace to put the holder key on the token anyway."
        case .failed(let step, let rv): return "PKCS#11 \(step) failed: \(PKCS11.name(of: rv))."
        }
    }
}

/// One loaded PKCS#11 module (Cryptoki library), initialised for this process.
final class PKCS11 {
    private let handle: UnsafeMutableRawPointer
    let functions: CK_FUNCTION_LIST
    let path: String

    init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw TokenError.moduleUnloadable(path: path, why: "no such file") }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw TokenError.moduleUnloadable(path: path, why: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        guard let symbol = dlsym(handle, "C_GetFunctionList") else {
            dlclose(handle)
            throw TokenError.moduleUnloadable(path: path, why: "it is not a PKCS#11 module (no C_GetFunctionList)")
        }
        let getList = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CK_FUNCTION_LIST>?>?) -> CK_RV).self)
        var list: UnsafeMutablePointer<CK_FUNCTION_LIST>?
        let rv = getList(&list)
        guard rv == CKR_OK, let list else { dlclose(handle); throw TokenError.failed(step: "C_GetFunctionList", rv: rv) }
        self.handle = handle
        self.functions = list.pointee
        self.path = path
        let initialised = functions.C_Initialize(nil)
        guard initialised == CKR_OK || initialised == CKR_CRYPTOKI_ALREADY_INITIALIZED else {
            dlclose(handle)
            throw TokenError.failed(step: "C_Initialize", rv: initialised)
        }
    }

    deinit {
        _ = functions.C_Finalize(nil)
        dlclose(handle)
    }

    func check(_ rv: CK_RV, _ step: String) throws {
        guard rv == CKR_OK else { throw TokenError.failed(step: step, rv: rv) }
    }

    struct Token {
        let slot: CK_SLOT_ID
        let label: String
        let serial: String
        let model: String
        let flags: CK_FLAGS
    }

    /// The slots that hold a token, with the token's label and serial number.
    func tokens() throws -> [Token] {
        var count: CK_ULONG = 0
        try check(functions.C_GetSlotList(CK_BBOOL(CK_TRUE), nil, &count), "C_GetSlotList")
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(count))
        try check(functions.C_GetSlotList(CK_BBOOL(CK_TRUE), &slots, &count), "C_GetSlotList")
        return try slots.prefix(Int(count)).map { slot in
            var info = CK_TOKEN_INFO()
            try check(functions.C_GetTokenInfo(slot, &info), "C_GetTokenInfo")
            return Token(slot: slot, label: PKCS11.text(info.label), serial: PKCS11.text(info.serialNumber),
                         model: PKCS11.text(info.model), flags: info.flags)
        }
    }

    /// Cryptoki's blank-padded fixed-size text fields.
    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0, as: UTF8.self) }.trimmed(where: { $0 == " " || $0 == "\0" })
    }

    static func name(of rv: CK_RV) -> String {
        let names: [CK_RV: String] = [
            CK_RV(CKR_PIN_INCORRECT): "CKR_PIN_INCORRECT", CK_RV(CKR_PIN_LOCKED): "CKR_PIN_LOCKED",
            CK_RV(CKR_TOKEN_NOT_PRESENT): "CKR_TOKEN_NOT_PRESENT", CK_RV(CKR_DEVICE_REMOVED): "CKR_DEVICE_REMOVED",
            CK_RV(CKR_SLOT_ID_INVALID): "CKR_SLOT_ID_INVALID", CK_RV(CKR_MECHANISM_INVALID): "CKR_MECHANISM_INVALID",
            CK_RV(CKR_USER_NOT_LOGGED_IN): "CKR_USER_NOT_LOGGED_IN", CK_RV(CKR_TOKEN_WRITE_PROTECTED): "CKR_TOKEN_WRITE_PROTECTED",
            CK_RV(CKR_DEVICE_ERROR): "CKR_DEVICE_ERROR", CK_RV(CKR_FUNCTION_FAILED): "CKR_FUNCTION_FAILED",
            CK_RV(CKR_GENERAL_ERROR): "CKR_GENERAL_ERROR", CK_RV(CKR_TEMPLATE_INCONSISTENT): "CKR_TEMPLATE_INCONSISTENT",
            CK_RV(CKR_USER_PIN_NOT_INITIALIZED): "CKR_USER_PIN_NOT_INITIALIZED",
        ]
        return names[rv] ?? "CKR 0x" + rv.hex(1)
    }
}

/// A logged-in read-write session on one token.
final class PKCS11Session {
    let module: PKCS11
    let token: PKCS11.Token
    let handle: CK_SESSION_HANDLE

    init(module: PKCS11, token: PKCS11.Token, pin: String) throws {
        self.module = module
        self.token = token
        var session: CK_SESSION_HANDLE = 0
        let opened = module.functions.C_OpenSession(token.slot, CK_FLAGS(CKF_SERIAL_SESSION | CKF_RW_SESSION), nil, nil, &session)
        if opened == CKR_TOKEN_NOT_PRESENT || opened == CKR_DEVICE_REMOVED || opened == CKR_SLOT_ID_INVALID {
            throw TokenError.tokenAbsent(label: token.label, serial: token.serial)
        }
        try module.check(opened, "C_OpenSession")
        handle = session
        var pinBytes = Array(pin.utf8)
        defer { for i in pinBytes.indices { pinBytes[i] = 0 } }
        let loggedIn = module.functions.C_Login(session, CK_USER_TYPE(CKU_USER), &pinBytes, CK_ULONG(pinBytes.count))
        switch loggedIn {
        case CK_RV(CKR_OK), CK_RV(CKR_USER_ALREADY_LOGGED_IN): break
        case CK_RV(CKR_PIN_INCORRECT), CK_RV(CKR_PIN_INVALID), CK_RV(CKR_PIN_LEN_RANGE):
            _ = module.functions.C_CloseSession(session)
            var info = CK_TOKEN_INFO()
            _ = module.functions.C_GetTokenInfo(token.slot, &info)
            let left = info.flags & CK_FLAGS(CKF_USER_PIN_FINAL_TRY) != 0 ? "; one try is left before it locks"
                : info.flags & CK_FLAGS(CKF_USER_PIN_COUNT_LOW) != 0 ? "; the token says few tries are left" : ""
            throw TokenError.wrongPIN(token: token.label, detail: PKCS11.name(of: loggedIn) + left)
        case CK_RV(CKR_PIN_LOCKED):
            _ = module.functions.C_CloseSession(session)
            throw TokenError.pinLocked(token: token.label)
        default:
            _ = module.functions.C_CloseSession(session)
            throw TokenError.failed(step: "C_Login", rv: loggedIn)
        }
    }

    deinit {
        _ = module.functions.C_Logout(handle)
        _ = module.functions.C_CloseSession(handle)
    }

    /// Objects matching every attribute given (class, label, id, key type…).
    func find(_ attributes: [(CK_ATTRIBUTE_TYPE, [UInt8])]) throws -> [CK_OBJECT_HANDLE] {
        try withTemplate(attributes) { template in
            try module.check(module.functions.C_FindObjectsInit(handle, template.baseAddress, CK_ULONG(template.count)), "C_FindObjectsInit")
            defer { _ = module.functions.C_FindObjectsFinal(handle) }
            var found: [CK_OBJECT_HANDLE] = []
            var batch = [CK_OBJECT_HANDLE](repeating: 0, count: 16)
            while true {
                var count: CK_ULONG = 0
                try module.check(module.functions.C_FindObjects(handle, &batch, CK_ULONG(batch.count), &count), "C_FindObjects")
                if count == 0 { return found }
                found += batch.prefix(Int(count))
            }
        }
    }

    /// One attribute's value.
    func attribute(_ type: CK_ATTRIBUTE_TYPE, of object: CK_OBJECT_HANDLE) throws -> [UInt8] {
        var probe = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
        try module.check(module.functions.C_GetAttributeValue(handle, object, &probe, 1), "C_GetAttributeValue")
        var value = [UInt8](repeating: 0, count: Int(probe.ulValueLen))
        try value.withUnsafeMutableBytes { buffer in
            var read = CK_ATTRIBUTE(type: type, pValue: buffer.baseAddress, ulValueLen: CK_ULONG(buffer.count))
            try module.check(module.functions.C_GetAttributeValue(handle, object, &read, 1), "C_GetAttributeValue")
        }
        return value
    }

    /// A P-256 key pair made on the token; the private half is sensitive and not extractable.
    func generateP256(label: String, id: [UInt8]) throws -> (publicKey: CK_OBJECT_HANDLE, privateKey: CK_OBJECT_HANDLE) {
        let yes: [UInt8] = [UInt8(CK_TRUE)], no: [UInt8] = [UInt8(CK_FALSE)]
        let common: [(CK_ATTRIBUTE_TYPE, [UInt8])] = [(CK_ATTRIBUTE_TYPE(CKA_TOKEN), yes), (CK_ATTRIBUTE_TYPE(CKA_LABEL), Array(label.utf8)),
                                                      (CK_ATTRIBUTE_TYPE(CKA_ID), id)]
        let publicTemplate = common + [(CK_ATTRIBUTE_TYPE(CKA_VERIFY), yes), (CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), PKCS11Session.prime256v1)]
        let privateTemplate = common + [(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), yes), (CK_ATTRIBUTE_TYPE(CKA_SENSITIVE), yes),
                                        (CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), no), (CK_ATTRIBUTE_TYPE(CKA_SIGN), yes)]
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_EC_KEY_PAIR_GEN), pParameter: nil, ulParameterLen: 0)
        var publicKey: CK_OBJECT_HANDLE = 0, privateKey: CK_OBJECT_HANDLE = 0
        try withTemplate(publicTemplate) { publicAttributes in
            try withTemplate(privateTemplate) { privateAttributes in
                try module.check(module.functions.C_GenerateKeyPair(handle, &mechanism, publicAttributes.baseAddress, CK_ULONG(publicAttributes.count),
                                                                     privateAttributes.baseAddress, CK_ULONG(privateAttributes.count),
                                                                     &publicKey, &privateKey), "C_GenerateKeyPair (P-256)")
            }
        }
        return (publicKey, privateKey)
    }

    /// CKM_ECDSA over a digest the caller computed: r‖s.
    func signECDSA(digest: [UInt8], with key: CK_OBJECT_HANDLE) throws -> [UInt8] {
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0)
        try module.check(module.functions.C_SignInit(handle, &mechanism, key), "C_SignInit (CKM_ECDSA)")
        var input = digest
        var signature = [UInt8](repeating: 0, count: 132)
        var length = CK_ULONG(signature.count)
        try module.check(module.functions.C_Sign(handle, &input, CK_ULONG(input.count), &signature, &length), "C_Sign")
        return Array(signature.prefix(Int(length)))
    }

    /// DER of the named curve prime256v1 (1.2.840.10045.3.1.7), the value of CKA_EC_PARAMS.
    static let prime256v1: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// Cryptoki templates point into memory that must outlive the call: copy each value into
    /// one allocation, build the template over it, call, free.
    private func withTemplate<R>(_ attributes: [(CK_ATTRIBUTE_TYPE, [UInt8])], _ body: (UnsafeMutableBufferPointer<CK_ATTRIBUTE>) throws -> R) rethrows -> R {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, attributes.reduce(0) { $0 + $1.1.count }), alignment: 8)
        defer { storage.deallocate() }
        var template: [CK_ATTRIBUTE] = []
        var offset = 0
        for (type, value) in attributes {
            let pointer = storage + offset
            if !value.isEmpty { value.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            template.append(CK_ATTRIBUTE(type: type, pValue: value.isEmpty ? nil : pointer, ulValueLen: CK_ULONG(value.count)))
            offset += value.count
        }
        return try template.withUnsafeMutableBufferPointer { try body($0) }
    }
}
