/// An attribute value of a span or event: the OTLP `AnyValue` kinds used here.
package enum SpanAttributeValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case strings([String])
}

/// One attribute: a key (an OpenTelemetry semantic-convention name or `authflow.*`) and its value.
package struct SpanAttribute: Sendable, Hashable {
    package let key: String
    package let value: SpanAttributeValue

    package init(_ key: String, _ value: SpanAttributeValue) {
        self.key = key
        self.value = value
    }
}

/// A time-stamped annotation of a span (a step of the sign-in flow).
package struct SpanEvent: Sendable, Hashable {
    package let name: String
    /// Nanoseconds since the Unix epoch (injected clock).
    package let time: UInt64
    package let attributes: [SpanAttribute]

    package init(name: String, time: UInt64, attributes: [SpanAttribute] = []) {
        self.name = name
        self.time = time
        self.attributes = attributes
    }
}

/// A finished span, as exported.
package struct SpanRecord: Sendable, Hashable {
    /// The OTLP `SpanKind` values used here.
    package enum Kind: UInt64, Sendable {
        case internalOperation = 1
        case server = 2
        case client = 3
    }

    /// The OTLP `Status.StatusCode` values.
    package enum Status: UInt64, Sendable {
        case unset = 0
        case ok = 1
        case error = 2
    }

    package var context: TraceContext
    package var parentSpanID: [UInt8]?
    package var name: String
    package var kind: Kind
    /// Nanoseconds since the Unix epoch.
    package var start: UInt64
    package var end: UInt64
    package var attributes: [SpanAttribute]
    package var events: [SpanEvent]
    package var status: Status

    package init(
        context: TraceContext, parentSpanID: [UInt8]?, name: String, kind: Kind, start: UInt64, end: UInt64,
        attributes: [SpanAttribute] = [], events: [SpanEvent] = [], status: Status = .unset
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.start = start
        self.end = end
        self.attributes = attributes
        self.events = events
        self.status = status
    }
}
