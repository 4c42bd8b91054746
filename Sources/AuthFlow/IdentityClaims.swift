public import AuthFlowJOSE

/// Small helpers plugins use to read identity members from claims or userinfo JSON.
public enum IdentityClaims {
    /// A boolean that may arrive as JSON `true`/`false` or as the strings `"true"`/`"false"` (Apple).
    public static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// `name`, or `given_name` and `family_name` joined by a space, or `nil`.
    public static func displayName(_ object: [String: JSONValue]) -> String? {
        if let name = object["name"]?.stringValue, !name.isEmpty { return name }
        let parts = [object["given_name"]?.stringValue, object["family_name"]?.stringValue]
            .compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
