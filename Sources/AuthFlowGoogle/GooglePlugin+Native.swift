public import AuthFlow

extension GooglePlugin: NativeSignInProviding {
    /// Credential Manager and GoogleSignIn-iOS ask for a token whose `aud` is the server's (web) client id;
    /// `azp` names the Android or iOS client that presented it, one of `native_clients`.
    public var nativeAudience: NativeAudience { .serverClientPresentedByNativeClient }
}
