internal import Foundation

/// The small value syntaxes of `providers.yaml`: durations, URLs, provider names.
package enum ConfigurationSyntax {
    /// Seconds of `8h`, `30m`, `90s`, `2d`, or combinations in descending order (`1h30m`); `nil` otherwise.
    package static func duration(_ text: String) -> Int? {
        let units: [(Unicode.Scalar, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        var total = 0
        var number = 0
        var digits = 0
        var nextUnit = 0
        for scalar in text.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                guard digits < 9 else { return nil }
                number = number * 10 + Int(scalar.value - 48)
                digits += 1
                continue
            }
            guard digits > 0, let position = units[nextUnit...].firstIndex(where: { $0.0 == scalar }) else {
                return nil
            }
            total += number * units[position].1
            number = 0
            digits = 0
            nextUnit = position + 1
        }
        guard digits == 0, nextUnit > 0 else { return nil }
        return total
    }

    /// A URL split into what the checks need.
    package struct URLParts {
        package var scheme: String
        package var host: String
        package var hasUserInfo: Bool
        package var path: String
        package var hasQuery: Bool
        package var hasFragment: Bool
        package var isLoopback: Bool { LoopbackHost.contains(host) }
    }

    /// Splits `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; `nil` when it is not of that form.
    package static func url(_ text: String) -> URLParts? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard !scheme.isEmpty,
            scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) })
        else { return nil }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let afterAuthority = rest[authorityEnd...]
        var hasUserInfo = false
        if let at = authority.lastIndex(of: "@") {
            hasUserInfo = true
            authority = authority[authority.index(after: at)...]
        }
        var host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let port = authority[authority.index(after: close)...]
            guard port.isEmpty || (port.hasPrefix(":") && port.dropFirst().allSatisfy(\.isNumber)) else { return nil }
        } else {
            host = authority
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                let port = authority[authority.index(after: colon)...]
                guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            }
        }
        guard !host.isEmpty,
            host.unicodeScalars.allSatisfy({
                $0.value > 0x20 && $0.value < 0x7F && !"/\\?#@ ".unicodeScalars.contains($0)
            })
        else { return nil }
        let fragmentStart = afterAuthority.firstIndex(of: "#")
        let beforeFragment = afterAuthority[..<(fragmentStart ?? afterAuthority.endIndex)]
        let queryStart = beforeFragment.firstIndex(of: "?")
        let path = beforeFragment[..<(queryStart ?? beforeFragment.endIndex)]
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) else {
            return nil
        }
        return URLParts(
            scheme: scheme.lowercased(), host: String(host), hasUserInfo: hasUserInfo, path: String(path),
            hasQuery: queryStart != nil, hasFragment: fragmentStart != nil)
    }

    /// `[a-z0-9_-]{1,64}`.
    static func isValidProviderName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
    }

    /// An authorization-request parameter name: 1–64 of letters, digits, `_`, `-` and `.`.
    static func isValidParameterName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-" || $0 == "."
            }
    }
}
