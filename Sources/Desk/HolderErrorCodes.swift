import OpenID4VP
import PassportKit
import QRCodes

// The codes and exit statuses of the QR and OpenID4VP errors, which the desk's holder side and
// the command line both report. They are declared here, the lowest module that sees both these
// errors and `ReportableError`.

extension OpenID4VPError: ReportableError {}

extension QRCodeError: ReportableError {
    public var code: String {
        switch self {
        case .tooLarge: return "qr_too_large"
        case .noCode: return "qr_not_found"
        case .severalCodes: return "qr_several_codes"
        case .damaged: return "qr_damaged"
        case .notText: return "qr_not_text"
        case .controlCharacters: return "qr_control_characters"
        case .notARequest: return "qr_not_a_request"
        case .notAPresentation: return "qr_not_a_presentation"
        case .tooLong: return "qr_too_long"
        case .unreadableImage: return "qr_unreadable_image"
        case .unsupportedImageType: return "usage"
        }
    }

    /// 2 when the holder's choice cannot be carried out as asked (too much to show, a file type);
    /// 1 for an image or a code that is not what was expected.
    public var exitStatus: Int32 {
        switch self {
        case .tooLarge, .unsupportedImageType: return ExitStatus.environment
        case .noCode, .severalCodes, .damaged, .notText, .controlCharacters, .notARequest, .notAPresentation,
             .tooLong, .unreadableImage:
            return ExitStatus.invalid
        }
    }
}
