public enum TasklineVersion {
    public static let server = "0.1.0"
    public static let proto = "1"
}
