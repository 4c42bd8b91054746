/// The few protobuf wire-format pieces the OTLP export needs (<https://protobuf.dev/programming-guides/encoding/>):
/// varints, fixed-width little-endian integers and length-delimited fields (strings, bytes, nested messages).
/// Fields equal to their default (zero, empty) are left out, as proto3 does. Everything, nested messages included,
/// is written into the one byte array: a nested message's length is patched in once its fields are written.
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

    /// How many bytes ``varint(_:)`` writes for `value`.
    static func varintLength(_ value: UInt64) -> Int {
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    /// The UTF-8 bytes of `text`, copied at once from its storage.
    mutating func append(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
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
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A fixed32 field; skipped when zero.
    package mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
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
        let count = value.utf8.count
        guard count > 0 else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(count))
        append(value)
    }

    /// A nested message field, written even when empty (a present but empty message differs from an absent one).
    /// `build` writes the message's fields into this writer after a one-byte length, which is then set, or widened
    /// to the varint the length needs (the fields move up by the extra bytes).
    package mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        build(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
        } else {
            var prefix = ProtobufWriter()
            prefix.varint(UInt64(length))
            bytes.replaceSubrange(lengthAt...lengthAt, with: prefix.bytes)
        }
    }
}
