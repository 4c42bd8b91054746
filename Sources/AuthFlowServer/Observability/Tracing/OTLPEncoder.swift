/// Encodes spans as an OTLP `ExportTraceServiceRequest` in protobuf (the body of an OTLP/HTTP traces POST,
/// `Content-Type: application/x-protobuf`; <https://opentelemetry.io/docs/specs/otlp/>). Field numbers are those
/// of `opentelemetry/proto/collector/trace/v1/trace_service.proto`, `trace/v1/trace.proto`,
/// `resource/v1/resource.proto` and `common/v1/common.proto` in the opentelemetry-proto repository.
package enum OTLPEncoder {
    /// The instrumentation scope every span is reported under.
    package static let scopeName = "authflow"

    /// One request carrying `spans` under one resource (`service.name` = `serviceName`) and one scope.
    package static func encode(_ spans: [SpanRecord], serviceName: String, version: String? = nil) -> [UInt8] {
        var request = ProtobufWriter()
        // Room for the usual span (a server span's attributes come to about 300 bytes), so the buffer rarely grows.
        request.bytes.reserveCapacity(128 + spans.count * 384)
        // ExportTraceServiceRequest.resource_spans = 1
        request.message(1) { resourceSpans in
            // ResourceSpans.resource = 1 → Resource.attributes = 1
            resourceSpans.message(1) { resource in
                writeAttribute(&resource, field: 1, SpanAttribute("service.name", .string(serviceName)))
            }
            // ResourceSpans.scope_spans = 2
            resourceSpans.message(2) { scopeSpans in
                // ScopeSpans.scope = 1 → InstrumentationScope.name = 1, version = 2
                scopeSpans.message(1) { scope in
                    scope.string(1, scopeName)
                    if let version { scope.string(2, version) }
                }
                // ScopeSpans.spans = 2
                for span in spans {
                    scopeSpans.message(2) { writeSpan(&$0, span) }
                }
            }
        }
        return request.bytes
    }

    static func writeSpan(_ writer: inout ProtobufWriter, _ span: SpanRecord) {
        writer.data(1, span.context.traceID)  // trace_id
        writer.data(2, span.context.spanID)  // span_id
        writer.string(3, span.context.state ?? "")  // trace_state
        writer.data(4, span.parentSpanID ?? [])  // parent_span_id
        writer.string(5, span.name)  // name
        writer.uint(6, span.kind.rawValue)  // kind
        writer.fixed64(7, span.start)  // start_time_unix_nano
        writer.fixed64(8, span.end)  // end_time_unix_nano
        for attribute in span.attributes { writeAttribute(&writer, field: 9, attribute) }  // attributes
        for event in span.events {
            writer.message(11) { encoded in  // events
                encoded.fixed64(1, event.time)  // time_unix_nano
                encoded.string(2, event.name)  // name
                for attribute in event.attributes { writeAttribute(&encoded, field: 3, attribute) }  // attributes
            }
        }
        if span.status != .unset {
            writer.message(15) { $0.uint(3, span.status.rawValue) }  // status → Status.code = 3
        }
        writer.fixed32(16, UInt32(span.context.flags))  // flags: the W3C trace flags in the low 8 bits
    }

    /// A `KeyValue` (key = 1, value = 2 an `AnyValue`) in field `field` of the enclosing message. A string, integer
    /// or boolean value has its lengths worked out first and is written straight; a list of strings goes through
    /// ``ProtobufWriter/message(_:_:)``.
    static func writeAttribute(_ writer: inout ProtobufWriter, field: Int, _ attribute: SpanAttribute) {
        let valueLength: Int
        switch attribute.value {
        case .string(let text):
            let count = text.utf8.count
            valueLength = 1 + ProtobufWriter.varintLength(UInt64(count)) + count
        case .int(let number): valueLength = 1 + ProtobufWriter.varintLength(UInt64(bitPattern: number))
        case .bool: valueLength = 2
        case .strings:
            writer.message(field) { pair in
                pair.string(1, attribute.key)
                pair.message(2) { writeValue(&$0, attribute.value) }
            }
            return
        }
        let keyLength = attribute.key.utf8.count
        let keyField = keyLength == 0 ? 0 : 1 + ProtobufWriter.varintLength(UInt64(keyLength)) + keyLength
        writer.tag(field, .lengthDelimited)
        writer.varint(UInt64(keyField + 1 + ProtobufWriter.varintLength(UInt64(valueLength)) + valueLength))
        writer.string(1, attribute.key)
        writer.tag(2, .lengthDelimited)
        writer.varint(UInt64(valueLength))
        writeValue(&writer, attribute.value)
    }

    /// An `AnyValue`: string_value = 1, bool_value = 2, int_value = 3, array_value = 5 (`ArrayValue.values` = 1).
    /// A false or zero value is written explicitly (a oneof member is present even at its default).
    static func writeValue(_ writer: inout ProtobufWriter, _ value: SpanAttributeValue) {
        switch value {
        case .string(let text):
            writer.tag(1, .lengthDelimited)
            writer.varint(UInt64(text.utf8.count))
            writer.append(text)
        case .bool(let flag):
            writer.tag(2, .varint)
            writer.varint(flag ? 1 : 0)
        case .int(let number):
            writer.tag(3, .varint)
            writer.varint(UInt64(bitPattern: number))
        case .strings(let texts):
            writer.message(5) { array in
                for text in texts { array.message(1) { writeValue(&$0, .string(text)) } }
            }
        }
    }
}
