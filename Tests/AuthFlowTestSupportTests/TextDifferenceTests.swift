import AuthFlowTestSupport
import Testing

@Suite("TextDifference")
struct TextDifferenceTests {
    @Test func namesTheFirstDifferingLineWithItsNeighbours() throws {
        let message = try #require(TextDifference.first(expected: "a\nb\nc\nd\n", actual: "a\nb\nC\nd\n"))
        #expect(message.contains("first difference at line 3:"))
        #expect(message.contains("   a\n   b\n - c\n + C"))
        #expect(message.contains("(expected text 5 lines, output 5 lines)"))
    }

    @Test func saysWhichTextEndedFirst() throws {
        let shorter = try #require(TextDifference.first(expected: "a\nb", actual: "a", expectedName: "snapshot"))
        #expect(shorter.contains(" - b\n + (end of output)"))
        let longer = try #require(TextDifference.first(expected: "a", actual: "a\nb", expectedName: "snapshot"))
        #expect(longer.contains(" - (end of snapshot)\n + b"))
    }

    @Test func equalTextsHaveNoDifference() {
        #expect(TextDifference.first(expected: "same\n", actual: "same\n") == nil)
    }
}
