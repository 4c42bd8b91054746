/// The few protobuf wire-format pieces the OTLP export needs (<https://protobuf.dev/programming-guides/encoding/>):
/// varints, fixed-width little-endian integers and length-delimited fields (strings, bytes, nested messages).
/// Fields equal to their default (zero, empty) are left out, as proto3 does.
package struct ProtobufWriter {
    package internal(set) var bytes: [UInt8] = []

    package init() {}

    /// The wire types used here.
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    /// A varint field (uint32, uint64, enum, bool); skipped when zero.
    package mutating func uint(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// An int64 field (two's complement as a varint); skipped when zero.
    package mutating func int(_ field: Int, _ value: Int64) {
        uint(field, UInt64(bitPattern: value))
    }

    /// A fixed64 field; skipped when zero.
    package mutating func fixed64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// A fixed32 field; skipped when zero.
    package mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// A double field (fixed64 of its bits); skipped when zero.
    package mutating func double(_ field: Int, _ value: Double) {
        fixed64(field, value.bitPattern)
    }

    /// A bytes field; skipped when empty.
    package mutating func data(_ field: Int, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A string field (UTF-8); skipped when empty.
    package mutating func string(_ field: Int, _ value: String) {
        data(field, Array(value.utf8))
    }

    /// A nested message field, written even when empty (a present but empty message differs from an absent one).
    package mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        var nested = ProtobufWriter()
        build(&nested)
        tag(field, .lengthDelimited)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }
}
