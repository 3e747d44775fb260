import LDS

/// One image of DG3 (a finger) or DG4 (an iris), as `passport photo --dg3/--dg4` saves it.
public struct BiometricImage: Sendable {
    /// "right index finger", "left eye".
    public let position: String
    /// The format the record declares, e.g. "WSQ", "monochrome JPEG 2000".
    public let format: String
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]
    /// The extension of the image as stored (from its bytes, else from its record).
    public let fileExtension: String
    /// Whether the image decoder (Leptonica: JPEG, JPEG 2000, PNG) reads it.
    public let decodable: Bool

    /// The images of DG3 or DG4, in record order; enciphered records are left out.
    public static func all(in file: LDSFile, _ bytes: [UInt8]) throws -> [BiometricImage] {
        let decodable: Set<BiometricImageFormat> = [.jpeg, .jp2, .j2k, .png]
        if file == .dataGroup(3) {
            return try DataGroup3(bytes: bytes).fingers.map {
                BiometricImage(position: $0.positionName, format: $0.compression.description, width: $0.width, height: $0.height,
                               bytes: $0.image, fileExtension: $0.fileExtension, decodable: decodable.contains($0.detectedFormat))
            }
        }
        return try DataGroup4(bytes: bytes).irises.map {
            BiometricImage(position: $0.eye.description, format: $0.format.description, width: $0.width, height: $0.height,
                           bytes: $0.image, fileExtension: $0.fileExtension, decodable: decodable.contains($0.detectedFormat))
        }
    }
}
