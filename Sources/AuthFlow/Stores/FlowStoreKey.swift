import AuthFlowJOSE

/// How flow stores key a spent state: a digest, so a store (or its backup) never holds a usable state.
public enum FlowStoreKey {
    /// Base64url SHA-256 of `"authflow spent-state v1 " + state` (43 characters).
    public static func digest(of state: String) -> String {
        Base64URL.encode(Digest.sha256(Array("authflow spent-state v1 \(state)".utf8)))
    }
}
