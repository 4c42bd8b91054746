public import AuthFlowJOSE
import Foundation

extension FlowRecord {
    /// The record as a JSON object (for stores that keep bytes, e.g. Redis or a SQL column).
    ///
    /// `created_at` is in integer milliseconds since 1970.
    public func jsonValue() -> JSONValue {
        var object: [String: JSONValue] = [
            "v": .integer(1),
            "provider": .string(provider),
            "state": .string(state),
            "browser_binding": .string(browserBindingDigest),
            "intent": .string(intent.rawValue),
            "created_at": .integer(Int64((createdAt.timeIntervalSince1970 * 1000).rounded())),
        ]
        if let nonce { object["nonce"] = .string(nonce) }
        if let pkceVerifier { object["pkce_verifier"] = .string(pkceVerifier) }
        if let returnTo { object["return_to"] = .string(returnTo) }
        return .object(object)
    }

    /// The record as compact UTF-8 JSON.
    public func serialized() -> [UInt8] {
        jsonValue().serializedBytes()
    }

    /// Reads a record written by ``serialized()``.
    ///
    /// - Throws: ``FlowStoreError/Code-swift.struct/invalidRecord`` when the bytes are not such a record.
    public init(serialized bytes: some Collection<UInt8>) throws(FlowStoreError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw FlowStoreError(.invalidRecord, "expected a JSON flow record, found bytes that are not JSON")
        }
        guard json["v"]?.int64Value == 1,
            let provider = json["provider"]?.stringValue,
            let state = json["state"]?.stringValue,
            let binding = json["browser_binding"]?.stringValue,
            let intent = json["intent"]?.stringValue.flatMap(SignInIntent.init(rawValue:)),
            let created = json["created_at"]?.int64Value
        else {
            throw FlowStoreError(.invalidRecord, "expected a version 1 flow record with every required member")
        }
        self.init(
            provider: provider, state: state, nonce: json["nonce"]?.stringValue,
            pkceVerifier: json["pkce_verifier"]?.stringValue, returnTo: json["return_to"]?.stringValue,
            browserBindingDigest: binding, intent: intent,
            createdAt: Date(timeIntervalSince1970: Double(created) / 1000))
    }
}
