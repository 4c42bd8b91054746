internal import Foundation

/// `${VAR}` and `${VAR:-default}` in configuration values.
///
/// `${VAR}` is the variable's value (empty when set but empty); `${VAR:-default}` uses `default` when
/// the variable is unset or empty. `$${` writes a literal `${`; any other `$` is literal. Names are
/// `[A-Za-z_][A-Za-z0-9_]*`. The default text is taken literally, up to the first `}`.
enum EnvironmentInterpolation {
    enum Outcome: Equatable {
        /// The expanded text; `usedEnvironment` when any variable's value went into it.
        case text(String, usedEnvironment: Bool)
        /// Variables that are unset and have no default, in order of appearance.
        case missing([String])
        /// The reference is malformed (the message says how).
        case malformed(String)
    }

    static func expand(_ text: String, environment: [String: String]) -> Outcome {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains("$") else { return .text(text, usedEnvironment: false) }
        var output = String.UnicodeScalarView()
        var missing: [String] = []
        var usedEnvironment = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$" else {
                output.append(scalar)
                index += 1
                continue
            }
            if index + 2 < scalars.count, scalars[index + 1] == "$", scalars[index + 2] == "{" {
                output.append(contentsOf: "${".unicodeScalars)
                index += 3
                continue
            }
            guard index + 1 < scalars.count, scalars[index + 1] == "{" else {
                output.append(scalar)
                index += 1
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                return .malformed("unterminated ${ (write $${ for a literal ${)")
            }
            let body = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
            let name: String
            let fallback: String?
            if let range = body.range(of: ":-") {
                name = String(body[..<range.lowerBound])
                fallback = String(body[range.upperBound...])
            } else {
                name = body
                fallback = nil
            }
            guard isValidName(name) else {
                return .malformed(
                    "invalid environment variable name \(quote(name)) in ${…}; names are letters, digits and _")
            }
            if let value = environment[name], !(fallback != nil && value.isEmpty) {
                output.append(contentsOf: value.unicodeScalars)
                usedEnvironment = true
            } else if let fallback {
                output.append(contentsOf: fallback.unicodeScalars)
            } else {
                if !missing.contains(name) { missing.append(name) }
            }
            index = close + 1
        }
        if !missing.isEmpty { return .missing(missing) }
        return .text(String(output), usedEnvironment: usedEnvironment)
    }

    private static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        guard first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + text + "\""
    }
}
