import LDS
import PassiveAuth

/// Whether the chip proved itself genuine, judged after the read: a PACE-CAM answer counts only
/// for a key in an authentic EF.CardSecurity, and chip authentication only with an authentic DG14.
public enum ChipAuthenticity {
    /// `contents` with its chip-authentication outcome judged against `verification`, passive
    /// authentication of the read with `trust` (both nil when no trust anchors were configured).
    public static func assess(_ contents: ChipContents, trust: TrustStore?, verification: PassiveAuthenticationReport?) -> ChipContents {
        guard contents.chipAuthentication == .passed else { return contents }
        var judged = contents
        switch contents.chipAuthenticationMethod {
        case .paceCAM?, .chipAuthenticationV2?: judged.chipAuthentication = cardSecurityKeyOutcome(contents, trust: trust, verification: verification)
        case .chipAuthentication?: judged.chipAuthentication = dg14Outcome(verification: verification)
        case nil: break
        }
        return judged
    }

    /// PACE-CAM or chip authentication version 2: the key is EF.CardSecurity's. Without trust
    /// anchors EF.CardSecurity's signature is still checked with its own DSC.
    static func cardSecurityKeyOutcome(_ contents: ChipContents, trust: TrustStore?,
                                       verification: PassiveAuthenticationReport?) -> AuthenticationOutcome {
        let method = contents.chipAuthenticationMethod == .paceCAM ? "PACE-CAM" : "chip authentication version 2"
        guard let bytes = contents.files[.cardSecurity] else {
            return .failed("\(method) without EF.CardSecurity: the chip's key cannot be authenticated")
        }
        let check = verification?.cardSecurity ?? PassiveAuthentication.verifyCardSecurity(
            bytes, dg14: contents.files[.dataGroup(14)], cardAccess: contents.files[.cardAccess],
            documentState: contents.files[.dataGroup(1)].flatMap(DataGroup1.issuingState(in:)), trust: trust ?? TrustStore())
        if check.passed { return .passed }
        if trust == nil && check.signatureValid {
            let done = contents.chipAuthenticationMethod == .paceCAM ? "CAM performed" : "chip authentication version 2 performed"
            return .unverified("\(done), EF.CardSecurity signature valid, chain not checked (no trust anchors)")
        }
        return .failed("\(method) answered for a key in an EF.CardSecurity that is not authentic: "
            + check.failures.joined(separator: " ") + " The chip may be a copy.")
    }

    /// DG14's key counts when DG14's hash is in a verified EF.SOD.
    static func dg14Outcome(verification: PassiveAuthenticationReport?) -> AuthenticationOutcome {
        guard let verification else {
            return .unverified("chip authentication performed with DG14's key; DG14 not verified (no trust anchors)")
        }
        let dg14 = verification.dataGroups.first { $0.number == 14 }?.status
        if verification.securityObjectVerified && dg14 == .valid { return .passed }
        return .failed("chip authentication answered for DG14's key, but DG14 is not authentic"
            + (dg14 == .mismatch ? " (its hash does not match EF.SOD)" : " (passive authentication failed)")
            + ". The chip may be a copy.")
    }

    /// A chip that offered chip or active authentication and answered wrongly.
    public static func failed(_ contents: ChipContents) -> Bool {
        if case .failed = contents.chipAuthentication { return true }
        if case .failed = contents.activeAuthentication { return true }
        return false
    }
}
