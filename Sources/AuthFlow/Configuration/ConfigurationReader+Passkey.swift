internal import AuthFlowYAML

extension ConfigurationReader {
    /// The keys of `type: passkey`, each checked for its form; how they fit together (the relying party id a
    /// registrable suffix of every web origin's host) is the passkey plugin's check.
    mutating func readPasskeyOptions(_ section: Fields, publicURL: String?) -> PasskeyOptions {
        var options = PasskeyOptions()
        options.publicURL = publicURL
        if let rpID = string(section.value("rp_id"), path: section.path("rp_id")) {
            if Self.isHostName(rpID) {
                options.rpID = rpID
            } else {
                report(
                    .invalidValue,
                    "expected a lowercase host name such as example.com for \(section.path("rp_id")) (no scheme, "
                        + "port or path), found \(YAMLError.quote(rpID))", at: section.value("rp_id")?.mark)
            }
        }
        options.rpName = string(section.value("rp_name"), path: section.path("rp_name"))
        options.origins = passkeyOrigins(section)
        options.userVerification = choice(section, "user_verification", PasskeyOptions.UserVerification.self)
        options.attestation = choice(section, "attestation", PasskeyOptions.Attestation.self)
        return options
    }

    /// `origins`: a non-empty list of web origins (`https://host[:port]`, `http://` on a loopback host only) and
    /// Android app origins (`android:apk-key-hash:` and the base64url SHA-256 of the signing certificate).
    private mutating func passkeyOrigins(_ section: Fields) -> [String]? {
        let path = section.path("origins")
        guard let list = stringList(section.value("origins"), path: path) else { return nil }
        guard !list.isEmpty else {
            report(
                .invalidValue, "expected at least one origin in \(path), found an empty list",
                at: section.value("origins")?.mark)
            return nil
        }
        var origins: [String] = []
        for (index, origin) in list.enumerated() {
            if Self.isPasskeyOrigin(origin) {
                origins.append(origin)
                continue
            }
            report(
                .invalidValue,
                "expected an origin such as https://example.com (scheme, host and optional port; no path, no "
                    + "trailing /, lowercase; http:// only on a loopback host) or android:apk-key-hash:… in \(path), "
                    + "found \(YAMLError.quote(origin))", at: section.value("origins")?.sequence?[index].mark)
        }
        return origins.count == list.count ? origins : nil
    }

    /// One of `Choice`'s raw values.
    private mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ section: Fields, _ key: String, _: Choice.Type
    ) -> Choice? where Choice.RawValue == String {
        guard let text = string(section.value(key), path: section.path(key)) else { return nil }
        if let value = Choice(rawValue: text) { return value }
        let allowed = Choice.allCases.map(\.rawValue).joined(separator: " or ")
        report(
            .invalidValue, "expected \(allowed) for \(section.path(key)), found \(YAMLError.quote(text))",
            at: section.value(key)?.mark)
        return nil
    }

    /// Lowercase ASCII labels of letters, digits and `-`, separated by single dots.
    static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
    }

    /// A web origin exactly as a browser serializes it, or an Android app origin.
    static func isPasskeyOrigin(_ text: String) -> Bool {
        let appPrefix = "android:apk-key-hash:"
        if text.hasPrefix(appPrefix) {
            let hash = text.dropFirst(appPrefix.count)
            return !hash.isEmpty
                && hash.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        || $0 == "_"
                }
        }
        guard text == text.lowercased(), let parts = ConfigurationSyntax.url(text), !parts.hasUserInfo,
            parts.path.isEmpty, !parts.hasQuery, !parts.hasFragment
        else { return false }
        return parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
    }
}
