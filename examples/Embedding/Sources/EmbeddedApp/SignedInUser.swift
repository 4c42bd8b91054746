import AuthFlowJOSE

/// The signed-in user as AuthFlow's `GET /auth/session` describes it.
struct SignedInUser: Sendable {
    /// AuthFlow's user id: stable across the user's linked providers.
    let userID: String
    /// The provider of the session.
    let provider: String
    /// The display name, when the provider gave one.
    let name: String?

    /// Reads the `/auth/session` JSON; `nil` when it lacks `user_id` or `provider`.
    init?(json: JSONValue) {
        guard let userID = json["user_id"]?.stringValue, let provider = json["provider"]?.stringValue else {
            return nil
        }
        self.userID = userID
        self.provider = provider
        self.name = json["name"]?.stringValue
    }
}
