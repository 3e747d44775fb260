public enum PassportKitVersion { public static let version = "0.1.0" }
