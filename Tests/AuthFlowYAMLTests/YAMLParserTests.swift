import AuthFlowYAML
import Testing

/// Parses `text` and returns the error it must throw.
func parseError(_ text: String, limits: YAMLLimits = .init()) throws -> YAMLError {
    do {
        _ = try YAMLParser.parse(text, fileName: "test.yaml", limits: limits)
    } catch {
        return error
    }
    Issue.record("expected the document to be refused")
    throw CancellationError()
}

@Suite struct YAMLParserTests {
    @Test func keepsLineAndColumnOfEveryNode() throws {
        let node = try YAMLParser.parse("server:\n  listen: 127.0.0.1:8080\n  list: [a, \"b\"]\n", fileName: "f.yaml")
        let server = try #require(node["server"])
        #expect(server.mark == YAMLMark(line: 2, column: 3))
        let listen = try #require(server["listen"]?.scalar)
        #expect(listen.value == "127.0.0.1:8080")
        #expect(listen.mark == YAMLMark(line: 2, column: 11))
        let list = try #require(server["list"]?.sequence)
        #expect(list.map(\.mark) == [YAMLMark(line: 3, column: 10), YAMLMark(line: 3, column: 13)])
        #expect(list[0].scalar?.isQuoted == false)
        #expect(list[1].scalar?.isQuoted == true)
        let keys = try #require(server.mapping).map(\.key)
        #expect(keys.map(\.value) == ["listen", "list"])
        #expect(keys[1].mark == YAMLMark(line: 3, column: 3))
    }

    @Test func readsTheCoreSchemaOnly() throws {
        let node = try YAMLParser.parse(
            "a: true\nb: \"true\"\nc: yes\nd: ~\ne: 0x1F\nf: -1.5e2\ng: 'null'\nh: !!str 12\ni:\n", fileName: "f")
        #expect(node["a"]?.scalar?.boolValue == true)
        #expect(node["b"]?.scalar?.boolValue == nil)
        #expect(node["c"]?.scalar?.boolValue == nil)
        #expect(node["d"]?.scalar?.isNull == true)
        #expect(node["e"]?.scalar?.int64Value == 31)
        #expect(node["f"]?.scalar?.doubleValue == -150)
        #expect(node["g"]?.scalar?.isNull == false)
        #expect(node["h"]?.scalar?.int64Value == nil)
        #expect(node["h"]?.scalar?.value == "12")
        #expect(node["i"]?.scalar?.isNull == true)
    }

    @Test func emptyDocumentIsNull() throws {
        let node = try YAMLParser.parse("# only a comment\n", fileName: "f")
        #expect(node.scalar?.isNull == true)
    }

    @Test func reportsSyntaxErrorWithSourceLineAndCaret() throws {
        let error = try parseError("server:\n  listen: a: b\n")
        #expect(error.code == .syntax)
        #expect(
            error.description == """
                test.yaml:2:12: mapping values are not allowed in this context
                  listen: a: b
                           ^
                """)
    }

    @Test func reportsWhereAnUnclosedCollectionStarted() throws {
        let error = try parseError("a: 1\nb: [1, 2\nc: 3\n")
        #expect(error.code == .syntax)
        #expect(error.mark == YAMLMark(line: 3, column: 2))
        #expect(
            error.message
                == "did not find expected ',' or ']' while parsing a flow sequence started at line 2, column 4")
    }

    @Test func caretKeepsTabsOfTheSourceLine() {
        let text = YAMLError.render(
            message: "m", fileName: "f", mark: YAMLMark(line: 1, column: 3), sourceLine: "\tab")
        #expect(text == "f:1:3: m\n\tab\n\t ^")
    }

    @Test func showsAWindowOfVeryLongLines() {
        let line = String(repeating: "a", count: 300) + "X" + String(repeating: "b", count: 300)
        let text = YAMLError.render(message: "m", fileName: "f", mark: YAMLMark(line: 1, column: 301), sourceLine: line)
        let expectedLine = "…" + String(repeating: "a", count: 80) + "X" + String(repeating: "b", count: 79) + "…"
        #expect(text == "f:1:301: m\n\(expectedLine)\n" + String(repeating: " ", count: 81) + "^")
        let start = YAMLError.render(message: "m", fileName: "f", mark: YAMLMark(line: 1, column: 2), sourceLine: line)
        #expect(start == "f:1:2: m\n" + String(repeating: "a", count: 160) + "…\n ^")
    }

    @Test func refusesDuplicateKeys() throws {
        let error = try parseError("providers:\n  google:\n    type: google\n    type: oidc\n")
        #expect(error.code == .duplicateKey)
        #expect(
            error.description == """
                test.yaml:4:5: duplicate key "type" (first defined at line 3, column 5)
                    type: oidc
                    ^
                """)
    }

    @Test func refusesDuplicateKeysInFlowMappings() throws {
        let error = try parseError("a: {x: 1, x: 2}\n")
        #expect(error.code == .duplicateKey)
        #expect(error.mark == YAMLMark(line: 1, column: 11))
    }

    @Test func refusesAliasBomb() throws {
        var text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
            previous = name
        }
        let error = try parseError(text)
        #expect(error.code == .tooManyNodes)
        #expect(error.mark?.line == 4)
        #expect(
            error.message == "document expands to more than 10000 nodes (aliases included); refusing to expand it")
    }

    @Test func expandsAliasesWithinTheLimit() throws {
        let node = try YAMLParser.parse("base: &b {x: 1}\ncopy: *b\n", fileName: "f")
        #expect(node["copy"]?["x"]?.scalar?.value == "1")
        #expect(node["copy"]?.mark == YAMLMark(line: 1, column: 7))  // the anchored node, anchor included
    }

    @Test func refusesAliasToUnknownAnchor() throws {
        let error = try parseError("a: *nowhere\n")
        #expect(error.code == .unknownAnchor)
        #expect(
            error.description
                == "test.yaml:1:4: alias *nowhere refers to no anchor defined before it\na: *nowhere\n   ^")
    }

    @Test func refusesDeepNesting() throws {
        let error = try parseError(String(repeating: "[", count: 100) + String(repeating: "]", count: 100))
        #expect(error.code == .tooDeep)
        #expect(error.mark == YAMLMark(line: 1, column: 65))
    }

    @Test func refusesDeepNestingThroughAliases() throws {
        let limits = YAMLLimits(maxDepth: 4)
        let error = try parseError("a: &a [[[1]]]\nb: [*a]\n", limits: limits)
        #expect(error.code == .tooDeep)
        #expect(error.mark == YAMLMark(line: 2, column: 5))
    }

    @Test func refusesOversizeDocument() throws {
        let text = "a: " + String(repeating: "x", count: (1 << 20))
        let error = try parseError(text)
        #expect(error.code == .documentTooLarge)
        #expect(error.description == "test.yaml: document is 1048579 bytes; the limit is 1048576 bytes")
    }

    @Test func refusesMultipleDocuments() throws {
        let error = try parseError("a: 1\n---\nb: 2\n")
        #expect(error.code == .multipleDocuments)
        #expect(
            error.description == "test.yaml:2:1: expected a single YAML document, found a second one\n---\n^")
    }

    @Test func refusesTagsOutsideTheCoreSchema() throws {
        let error = try parseError("a: !!binary aGk=\n")
        #expect(error.code == .unsupportedTag)
        #expect(error.message == "unsupported tag !!binary; only the YAML 1.2 core schema tags are accepted")
        let local = try parseError("a: !custom x\n")
        #expect(local.code == .unsupportedTag)
    }

    @Test func refusesComplexKeys() throws {
        let error = try parseError("? [a, b]\n: c\n")
        #expect(error.code == .complexKey)
        #expect(error.message == "expected a scalar mapping key, found a sequence")
    }

    @Test func refusesControlCharacters() throws {
        let error = try parseError("a: b\u{1}\n")
        #expect(error.code == .syntax)
        #expect(error.message == "control characters are not allowed")
    }

    @Test func returnsAllSourceLines() {
        let source = YAMLSourceText("one\r\ntwo\nthree")
        #expect(source.line(1) == "one")
        #expect(source.line(2) == "two")
        #expect(source.line(3) == "three")
        #expect(source.line(4) == nil)
        #expect(source.line(0) == nil)
    }
}
