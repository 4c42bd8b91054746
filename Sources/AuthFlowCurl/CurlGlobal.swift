internal import CCurl

/// `curl_global_init`, run exactly once per process (Swift initializes a static `let` lazily
/// and thread-safely).
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Initializes libcurl if no client did so yet.
    @discardableResult
    static func initializeOnce() -> Bool { initialized }
}
