import AuthFlowJOSE
import Testing

@Suite("ConstantTime")
struct ConstantTimeTests {
    @Test func equalBytesAndStringsCompareEqual() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals("", ""))
        #expect(ConstantTime.equals("n-0S6_WzA2Mj", "n-0S6_WzA2Mj"))
        #expect(ConstantTime.equals("é-ünïcode", "é-ünïcode"))
        // Non-contiguous collections take the copying path.
        #expect(ConstantTime.equals([1, 2, 3].lazy.map { UInt8($0) }, [1, 2, 3] as [UInt8]))
    }

    @Test func anyDifferenceCompareUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([0] as [UInt8], [UInt8]()))
        #expect(!ConstantTime.equals([UInt8](), [0] as [UInt8]))
        // A shorter side padded with zeros must still differ from a longer side of zeros.
        #expect(!ConstantTime.equals([0, 0] as [UInt8], [0] as [UInt8]))
        #expect(!ConstantTime.equals("nonce", "nonce "))
        #expect(!ConstantTime.equals("nonce", "Nonce"))
        #expect(!ConstantTime.equals("é", "e"))
        #expect(!ConstantTime.equals([1, 2, 3].lazy.map { UInt8($0) }, [1, 2, 5] as [UInt8]))
    }
}
