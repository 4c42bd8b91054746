public import AuthFlow

extension OIDCPlugin: NativeSignInProviding {
    /// A native app's token names the app's own client id (one of `native_clients`) as `aud`.
    public var nativeAudience: NativeAudience { .nativeClient }
}
