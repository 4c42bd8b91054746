extension JWK {
    /// Reads a JWK from its JSON object and validates it.
    /// - Throws: `JOSEError` — `.invalidKey` for missing or mistyped members, unknown `kty`/`crv`
    ///   or a point not on its curve; `.weakKey` for short RSA moduli, bad exponents, ROCA moduli
    ///   or short HMAC keys; `.keyMismatch` when `alg` does not fit `kty`/`crv`;
    ///   `.unsupportedAlgorithm` for an `alg` that is not a JWS algorithm AuthFlow implements;
    ///   `.invalidBase64URL` for a member that is not strict base64url.
    public init(json: JSONValue) throws(JOSEError) {
        guard let object = json.objectValue else {
            throw JOSEError(.invalidKey, "expected a JWK to be a JSON object")
        }
        let keyID = try Self.optionalString(object, "kid", keyID: nil)
        guard let keyType = try Self.optionalString(object, "kty", keyID: keyID) else {
            throw JOSEError(.invalidKey, "expected a 'kty' member, found none", keyID: keyID)
        }
        let members = Members(object: object, keyID: keyID, keyType: keyType)
        // Read in this order, so a key with several faults is refused for the same one as always.
        let use = try Self.optionalString(object, "use", keyID: keyID)
        let keyOperations = try members.keyOperations()
        let algorithm = try members.algorithm()
        try self.init(
            material: try members.material(), keyID: keyID, algorithm: algorithm, use: use,
            keyOperations: keyOperations)
    }

    /// The members of a JWK object being read, with the key id and type every refusal names.
    private struct Members {
        let object: [String: JSONValue]
        let keyID: String?
        let keyType: String

        func keyOperations() throws(JOSEError) -> [String]? {
            guard let operations = object["key_ops"] else { return nil }
            guard let array = operations.arrayValue else {
                throw JOSEError(.invalidKey, "expected 'key_ops' to be an array of strings", keyID: keyID)
            }
            var list: [String] = []
            for operation in array {
                guard let name = operation.stringValue else {
                    throw JOSEError(.invalidKey, "expected 'key_ops' to be an array of strings", keyID: keyID)
                }
                list.append(name)
            }
            return list
        }

        func algorithm() throws(JOSEError) -> JWSAlgorithm? {
            guard let name = try JWK.optionalString(object, "alg", keyID: keyID) else { return nil }
            guard let known = JWSAlgorithm(rawValue: name) else {
                throw JOSEError(
                    .unsupportedAlgorithm,
                    "expected a JWS algorithm AuthFlow implements in 'alg', found '\(JWK.sanitized(name))'",
                    keyID: keyID)
            }
            return known
        }

        func bytes(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let text = try JWK.optionalString(object, name, keyID: keyID) else {
                throw JOSEError(.invalidKey, "expected a '\(name)' member for kty \(keyType), found none", keyID: keyID)
            }
            do {
                return try Base64URL.decode(text)
            } catch {
                throw JOSEError(
                    .invalidKey, "expected '\(name)' to be strict base64url: \(error.message)", keyID: keyID)
            }
        }

        func optionalBytes(_ name: String) throws(JOSEError) -> [UInt8]? {
            object[name] == nil ? nil : try bytes(name)
        }

        func material() throws(JOSEError) -> KeyMaterial {
            switch keyType {
            case "RSA":
                return .rsa(n: try bytes("n"), e: try bytes("e"), privateParts: try rsaPrivateParts())
            case "EC":
                guard let curveName = try JWK.optionalString(object, "crv", keyID: keyID) else {
                    throw JOSEError(.invalidKey, "expected a 'crv' member for kty EC, found none", keyID: keyID)
                }
                guard let curve = ECCurve(rawValue: curveName) else {
                    throw JOSEError(
                        .invalidKey, "expected crv P-256, P-384 or P-521, found '\(JWK.sanitized(curveName))'",
                        keyID: keyID)
                }
                return .ec(curve: curve, x: try bytes("x"), y: try bytes("y"), d: try optionalBytes("d"))
            case "OKP":
                let curveName = try JWK.optionalString(object, "crv", keyID: keyID) ?? ""
                guard curveName == "Ed25519" else {
                    throw JOSEError(
                        .invalidKey, "expected crv Ed25519 for kty OKP, found '\(JWK.sanitized(curveName))'",
                        keyID: keyID)
                }
                return .ed25519(x: try bytes("x"), d: try optionalBytes("d"))
            case "oct":
                return .oct(k: try bytes("k"))
            default:
                throw JOSEError(
                    .invalidKey, "expected kty RSA, EC, OKP or oct, found '\(JWK.sanitized(keyType))'", keyID: keyID)
            }
        }

        /// d, p, q, dp, dq and qi of an RSA private key (all or none), or nil for a public key.
        func rsaPrivateParts() throws(JOSEError) -> [[UInt8]]? {
            guard object["d"] != nil else { return nil }
            var parts = [try bytes("d")]
            for name in ["p", "q", "dp", "dq", "qi"] {
                guard object[name] != nil else {
                    throw JOSEError(
                        .invalidKey, "expected the RSA private key to carry p, q, dp, dq and qi, found no '\(name)'",
                        keyID: keyID)
                }
                parts.append(try bytes(name))
            }
            return parts
        }
    }

    /// Parses JWK JSON bytes and validates the key, as ``init(json:)``.
    /// - Throws: `JOSEError` `.invalidJSON` for bad JSON, else as ``init(json:)``.
    public init(jsonData: some Collection<UInt8>) throws(JOSEError) {
        try self.init(json: try JOSEError.parsingJSON { () throws(JSONError) in try JSONValue.parse(jsonData) })
    }

    /// The public JWK as JSON (`kty`, `kid`, `alg`, `use`, `key_ops` and the public members).
    /// Symmetric keys have no public form: for them this holds only the metadata and `kty`.
    public func jsonValue() -> JSONValue {
        var members = metadataMembers()
        switch material {
        case .rsa(let n, let e, _):
            members["n"] = .string(Base64URL.encode(KeyMaterial.stripLeadingZeros(n)))
            members["e"] = .string(Base64URL.encode(KeyMaterial.stripLeadingZeros(e)))
        case .ec(let curve, let x, let y, _):
            members["crv"] = .string(curve.rawValue)
            members["x"] = .string(Base64URL.encode(x))
            members["y"] = .string(Base64URL.encode(y))
        case .ed25519(let x, _):
            members["crv"] = "Ed25519"
            members["x"] = .string(Base64URL.encode(x))
        case .oct:
            break
        }
        return .object(members)
    }

    /// The full JWK including private or secret members, for writing key files (sandbox, tests).
    /// Handle the result as a secret.
    public func exportPrivate() -> JSONValue {
        guard case .object(var members) = jsonValue() else { return jsonValue() }
        switch material {
        case .rsa(_, _, let parts?):
            for (name, value) in zip(["d", "p", "q", "dp", "dq", "qi"], parts) {
                members[name] = .string(Base64URL.encode(value))
            }
        case .ec(_, _, _, let d?), .ed25519(_, let d?):
            members["d"] = .string(Base64URL.encode(d))
        case .oct(let k):
            members["k"] = .string(Base64URL.encode(k))
        default:
            break
        }
        return .object(members)
    }

    private func metadataMembers() -> [String: JSONValue] {
        var members: [String: JSONValue] = ["kty": .string(keyType)]
        if let keyID { members["kid"] = .string(keyID) }
        if let algorithm { members["alg"] = .string(algorithm.rawValue) }
        if let use { members["use"] = .string(use) }
        if let keyOperations { members["key_ops"] = .array(keyOperations.map { .string($0) }) }
        return members
    }

    static func optionalString(_ members: [String: JSONValue], _ name: String, keyID: String?) throws(JOSEError)
        -> String?
    {
        guard let value = members[name] else { return nil }
        guard let string = value.stringValue else {
            throw JOSEError(.invalidKey, "expected '\(name)' to be a string", keyID: keyID)
        }
        return string
    }

    /// Short, printable echo of an untrusted name for error messages.
    static func sanitized(_ text: String) -> String {
        let printable = text.unicodeScalars.prefix(40).map {
            $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
        }
        return String(printable)
    }
}
