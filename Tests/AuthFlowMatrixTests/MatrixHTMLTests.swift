import AuthFlow
import AuthFlowDeployment
import AuthFlowJOSE
import AuthFlowMatrix
import Foundation
import Testing

/// The HTML page: standalone, escaped, well formed, and rendered by a real browser (headless Chromium).
@Suite struct MatrixHTMLTests {
    static func plainPage() throws -> String {
        CapabilityMatrix(
            providers: try MatrixTestSupport.providers("examples/plain.yaml"), source: "examples/plain.yaml"
        )
        .render(format: .html)
    }

    @Test func pageIsStandalone() throws {
        let page = try Self.plainPage()
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(page.contains("<meta charset=\"utf-8\">"))
        for forbidden in ["<script", "<link", "src=", "url(", "@import", "http://", "https://", "<iframe"] {
            #expect(!page.contains(forbidden), "the page must not load anything: found \(forbidden)")
        }
        #expect(page.contains("<style>"))
    }

    @Test func pageIsWellFormed() throws {
        #expect(try HTMLStructure.problems(in: Self.plainPage()) == [])
        #expect(HTMLStructure.problems(in: "<p><b>x</p></b>") != [], "the checker itself must catch misnesting")
    }

    @Test func pageColourCodesEveryCapabilityState() throws {
        let page = try Self.plainPage()
        // google: pkce and oidc off (optional); x: pkce required; apple: pkce unsupported with its reason.
        let google = try #require(page.range(of: "<tr id=\"provider-google\">"))
        let googleRow = try #require(page[google.lowerBound...].components(separatedBy: "</tr>").first)
        #expect(googleRow.components(separatedBy: "<td class=\"off\">off<small>optional</small></td>").count == 3)
        #expect(page.contains("<td class=\"required\">on<small>required</small></td>"))
        #expect(
            page.contains(
                "<td class=\"unsupported\" title=\"Apple&#39;s REST API documents no code_challenge parameter\">"))
        #expect(page.contains("<td class=\"warn\">userinfo<small>trusted over TLS</small></td>"))
        #expect(page.contains("<td class=\"good\">id_token<small>verified locally</small></td>"))
        #expect(page.contains("<code>capabilities.oidc: true</code>"))
        #expect(page.contains("<section class=\"legend\">"))
    }

    /// A plugin whose every text is hostile markup.
    struct HostilePlugin: ProviderPlugin {
        var about: ProviderDescription {
            ProviderDescription(
                type: "corp", displayName: "<img src=x onerror=alert(1)>",
                endpoints: ProviderEndpoints(
                    authorization: "https://sso.example/a", token: "https://sso.example/t",
                    userinfo: "https://sso.example/u"))
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            capability == .pkce ? .optional(default: false) : .unsupported(reason: "He said \"<b>no</b>\" & 'left'")
        }
        var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
    }

    @Test func everyConfiguredTextIsEscaped() throws {
        var registry = ProviderRegistry()
        registry.register(HostilePlugin())
        let configuration = try ConfigurationLoader(environment: [:], mode: .sandbox).load(
            yaml: """
                providers:
                  corp:
                    client_id: a
                    client_secret: ${CORP_SECRET}
                    redirect_uri: https://app.example/cb
                """, fileName: "t.yaml")
        let matrix = CapabilityMatrix(
            providers: try registry.resolve(configuration, credentials: .keys),
            source: "<script>alert('x')</script>&.yaml")
        let page = matrix.render(format: .html)
        #expect(!page.contains("<img"))
        #expect(!page.contains("<script"))
        #expect(!page.contains("<b>no"))
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(page.contains("He said &quot;&lt;b&gt;no&lt;/b&gt;&quot; &amp; &#39;left&#39;"))
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;.yaml"))
        #expect(HTMLStructure.problems(in: page) == [])
        // JSON and Markdown escape the same values for their own syntax.
        let json = try JSONValue.parse(Array(matrix.render(format: .json).utf8))
        #expect(json["source"] == .string("<script>alert('x')</script>&.yaml"))
        #expect(matrix.render(format: .markdown).contains("`<script>alert('x')</script>&.yaml`"), "a code span")
        let backtick = CapabilityMatrix(providers: [], source: "a`<b>").render(format: .markdown)
        #expect(backtick.hasPrefix("**AuthFlow capability matrix**: a\\`\\<b\\>\n"))
    }

    // MARK: Headless Chromium

    static let chromium = MatrixTestSupport.executable(
        named: "chromium", candidates: [ProcessInfo.processInfo.environment["AUTHFLOW_CHROMIUM"] ?? ""])

    /// Runs Chromium headless on `page` with `flags`, in a scratch profile; `nil` (with a reason) when absent.
    static func chromium(_ page: String, _ flags: [String], in directory: TemporaryDirectory) async throws
        -> MatrixTestSupport.Output?
    {
        guard let chromium else {
            if MatrixTestSupport.peersRequired {
                Issue.record("AUTHFLOW_REQUIRE_PEERS=1 but chromium is not installed (apt-get install chromium)")
            }
            return nil
        }
        let file = try directory.write("matrix.html", page)
        let arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(directory.url.appendingPathComponent("profile").path)",
            ] + flags + [URL(fileURLWithPath: file).absoluteString]
        return try await MatrixTestSupport.run(chromium, arguments, directory: directory.url, timeout: 120)
    }

    @Test(.enabled(if: chromium != nil || MatrixTestSupport.peersRequired, "chromium is not installed"))
    func chromiumRendersTheTableAndAdvice() async throws {
        let directory = try TemporaryDirectory()
        guard let output = try await Self.chromium(Self.plainPage(), ["--dump-dom"], in: directory) else { return }
        #expect(output.status == 0, "\(output.stderr.suffix(2000))")
        let dom = output.stdout
        #expect(dom.contains("<h1>Capability matrix</h1>"))
        for name in ["apple", "google", "facebook", "x"] {
            #expect(dom.contains("<tr id=\"provider-\(name)\">"), "no row for \(name)")
        }
        #expect(dom.components(separatedBy: "<li class=\"hardening\">").count == 4)
        #expect(dom.contains("<code>capabilities.pkce: true</code>"))
    }

    @Test(.enabled(if: chromium != nil || MatrixTestSupport.peersRequired, "chromium is not installed"))
    func chromiumTakesAScreenshot() async throws {
        let directory = try TemporaryDirectory()
        let png = directory.url.appendingPathComponent("matrix.png")
        guard
            let output = try await Self.chromium(
                Self.plainPage(), ["--window-size=1300,1700", "--hide-scrollbars", "--screenshot=\(png.path)"],
                in: directory)
        else { return }
        #expect(output.status == 0, "\(output.stderr.suffix(2000))")
        let bytes = try #require(FileManager.default.contents(atPath: png.path))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(bytes.count > 20_000, "a blank page compresses to a few kilobytes; found \(bytes.count) bytes")
    }
}

/// A small well-formedness check of generated HTML: every non-void element closed, in order.
enum HTMLStructure {
    static let voidElements: Set<String> = ["meta", "br", "hr", "img", "input", "link", "wbr", "col", "source"]

    static func problems(in html: String) -> [String] {
        var problems: [String] = []
        var stack: [String] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: ">") else {
                problems.append("unterminated tag")
                break
            }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("!") { continue }
            let isClosing = tag.hasPrefix("/")
            let name = String(
                (isClosing ? tag.dropFirst() : tag).prefix { $0.isLetter || $0.isNumber }
            ).lowercased()
            guard !name.isEmpty else {
                problems.append("a stray '<' before \(tag.prefix(20))")
                continue
            }
            if isClosing {
                if stack.last == name {
                    stack.removeLast()
                } else {
                    problems.append("</\(name)> closes <\(stack.last ?? "nothing")>")
                    return problems
                }
            } else if !voidElements.contains(name) {
                stack.append(name)
                if name == "style", let end = rest.range(of: "</style>") {
                    if rest[..<end.lowerBound].contains("<") { problems.append("'<' inside <style>") }
                    rest = rest[end.lowerBound...]
                }
            }
        }
        if !stack.isEmpty { problems.append("unclosed: \(stack.joined(separator: " "))") }
        return problems
    }
}
