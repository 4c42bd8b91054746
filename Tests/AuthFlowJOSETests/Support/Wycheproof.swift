@testable import AuthFlowJOSE

/// The one generic Wycheproof driver: loads a file, walks every group and test, runs `body`
/// (which returns nil when the input was accepted, or the refusal), and compares with `result`:
/// `valid` must be accepted, `invalid` refused, `acceptable` may go either way.
///
/// `deviations` lists the few tcIds where AuthFlow's documented policy is stricter than the
/// vector's verdict; for those the harness demands a refusal with exactly the given code.
enum Wycheproof {
    struct Report {
        var file: String
        var declaredCount: Int
        var ran = 0
        var accepted = 0
        var refused = 0
        var failures: [String] = []
    }

    /// What AuthFlow does instead of the vector's verdict, and why.
    enum Deviation {
        /// Refused with exactly this code.
        case refused(JOSEError.Code)
        /// Accepted (the vector contradicts another vector of the same file).
        case accepted
    }

    static func run(
        _ file: String, deviations: [Int: Deviation] = [:],
        _ body: (_ group: JSONValue, _ test: JSONValue) -> JOSEError?
    ) throws -> Report {
        let document = try Fixtures.json("wycheproof/\(file)")
        var report = Report(file: file, declaredCount: Int(document["numberOfTests"]?.int64Value ?? -1))
        for group in document["testGroups"]?.arrayValue ?? [] {
            for test in group["tests"]?.arrayValue ?? [] {
                report.ran += 1
                let tcId = Int(test["tcId"]?.int64Value ?? -1)
                let expected = test["result"]?.stringValue ?? "?"
                let comment = test["comment"]?.stringValue ?? ""
                let refusal = body(group, test)
                if refusal == nil { report.accepted += 1 } else { report.refused += 1 }
                switch deviations[tcId] {
                case .refused(let code)?:
                    if refusal?.code != code {
                        report.failures.append(
                            "tcId \(tcId) (\(comment)): documented deviation expects refusal \(code), got \(refusal.map { "\($0)" } ?? "acceptance")"
                        )
                    }
                    continue
                case .accepted?:
                    if let refusal {
                        report.failures.append(
                            "tcId \(tcId) (\(comment)): documented deviation expects acceptance, got \(refusal)")
                    }
                    continue
                case nil:
                    break
                }
                switch (expected, refusal) {
                case ("valid", let error?):
                    report.failures.append("tcId \(tcId) (\(comment)): expected valid, refused with \(error)")
                case ("invalid", nil):
                    report.failures.append("tcId \(tcId) (\(comment)): expected invalid, accepted")
                case ("valid", nil), ("invalid", _), ("acceptable", _):
                    break
                default:
                    report.failures.append("tcId \(tcId): unknown result '\(expected)'")
                }
            }
        }
        if report.ran != report.declaredCount {
            report.failures.append("ran \(report.ran) tests, the file declares \(report.declaredCount)")
        }
        return report
    }

    /// Turns a throwing step into "accepted" (nil) or the refusal.
    static func outcome(_ body: () throws(JOSEError) -> Void) -> JOSEError? {
        do throws(JOSEError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
