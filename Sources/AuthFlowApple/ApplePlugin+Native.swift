public import AuthFlow

extension ApplePlugin: NativeSignInProviding {
    /// The identity token's `aud` is the app's bundle id, one of `native_clients`.
    public var nativeAudience: NativeAudience { .nativeClient }

    /// The app's `authorizationCode` is exchanged with `client_id` = the bundle id (a Services ID there gives
    /// `invalid_client`), for the refresh token account deletion revokes.
    public var exchangesNativeAuthorizationCode: Bool { true }
}
