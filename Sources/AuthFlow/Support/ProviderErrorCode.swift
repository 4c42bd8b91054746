/// Keeps provider-supplied error codes safe to echo: RFC 6749 §5.2 characters only, at most 64 bytes.
enum ProviderErrorCode {
    static func sanitize(_ code: String?) -> String? {
        guard let code, !code.isEmpty, code.utf8.count <= 64 else { return nil }
        for byte in code.utf8 {
            // %x20-21 / %x23-5B / %x5D-7E
            guard byte >= 0x20, byte <= 0x7E, byte != 0x22, byte != 0x5C else { return nil }
        }
        return code
    }
}
