import AuthFlowYAML
import Testing

private struct Settings: Decodable, Equatable {
    struct Server: Decodable, Equatable {
        var port: Int
        var debug: Bool
        var ratio: Double?
    }
    enum Mode: String, Decodable { case fast, safe }
    var name: String
    var server: Server
    var tags: [String]
    var mode: Mode?
    var small: UInt8?
}

private func decodeError<T: Decodable>(_ type: T.Type, _ text: String) throws -> YAMLError {
    do {
        _ = try YAMLDecoder().decode(type, from: text, fileName: "app.yaml")
    } catch {
        return error
    }
    Issue.record("expected decoding to fail")
    throw CancellationError()
}

@Suite struct YAMLDecoderTests {
    @Test func decodesNestedValues() throws {
        let text = "name: 1234\nserver:\n  port: 8080\n  debug: false\n  ratio: .5\ntags: [a, 'b']\nmode: safe\n"
        let settings = try YAMLDecoder().decode(Settings.self, from: text, fileName: "app.yaml")
        #expect(
            settings
                == Settings(
                    name: "1234", server: .init(port: 8080, debug: false, ratio: 0.5), tags: ["a", "b"], mode: .safe,
                    small: nil))
    }

    @Test func reportsTypeMismatchAtTheNode() throws {
        let error = try decodeError(Settings.self, "name: a\nserver:\n  port: 1\n  debug: maybe\ntags: []\n")
        #expect(error.code == .typeMismatch)
        #expect(
            error.description == """
                app.yaml:4:10: expected a boolean, found "maybe"
                  debug: maybe
                         ^
                """)
    }

    @Test func explainsYesNoForBooleans() throws {
        let error = try decodeError(Settings.self, "name: a\nserver:\n  port: 1\n  debug: yes\ntags: []\n")
        #expect(
            error.message
                == "expected a boolean, found \"yes\" (YAML 1.2 reads yes/no/on/off as strings; write true or false)")
    }

    @Test func quotedTrueIsAString() throws {
        let error = try decodeError(Settings.self, "name: a\nserver:\n  port: 1\n  debug: \"true\"\ntags: []\n")
        #expect(error.message == "expected a boolean, found the string \"true\" (remove the quotes)")
    }

    @Test func reportsMissingKeyAtTheMapping() throws {
        let error = try decodeError(Settings.self, "name: a\nserver:\n  debug: true\ntags: []\n")
        #expect(error.code == .missingKey)
        #expect(error.description == "app.yaml:3:3: missing key \"port\"\n  debug: true\n  ^")
    }

    @Test func reportsWrongContainerType() throws {
        let error = try decodeError(Settings.self, "name: a\nserver: [1]\ntags: []\n")
        #expect(error.code == .typeMismatch)
        #expect(error.message == "expected a mapping, found a sequence")
        #expect(error.mark == YAMLMark(line: 2, column: 9))
    }

    @Test func reportsNullForString() throws {
        let error = try decodeError(Settings.self, "name: ~\nserver: {port: 1, debug: true}\ntags: []\n")
        #expect(error.message == "expected a string, found null")
        #expect(error.mark == YAMLMark(line: 1, column: 7))
    }

    @Test func reportsIntegerOverflowAndFractions() throws {
        let overflow = try decodeError(
            Settings.self, "name: a\nserver: {port: 1, debug: true}\ntags: []\nsmall: 300\n")
        #expect(overflow.code == .invalidValue)
        #expect(overflow.message == "expected an integer that fits in UInt8, found 300")
        #expect(overflow.mark == YAMLMark(line: 4, column: 8))
        let fraction = try decodeError(Settings.self, "name: a\nserver: {port: 1.5, debug: true}\ntags: []\n")
        #expect(fraction.message == "expected an integer, found 1.5")
        #expect(fraction.mark == YAMLMark(line: 2, column: 16))
    }

    @Test func reportsErrorsOfSynthesizedInitializersAtTheNode() throws {
        let error = try decodeError(
            Settings.self, "name: a\nserver: {port: 1, debug: true}\ntags: []\nmode: slow\n")
        #expect(error.code == .invalidValue)
        #expect(error.mark == YAMLMark(line: 4, column: 7))
        #expect(error.sourceLine == "mode: slow")
    }

    @Test func reportsSequenceItemPositions() throws {
        let error = try decodeError([Int].self, "- 1\n- two\n")
        #expect(error.description == "app.yaml:2:3: expected an integer, found \"two\"\n- two\n  ^")
    }
}
