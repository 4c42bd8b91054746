import FuzzSupport

@testable import AuthFlowServer

/// The W3C `traceparent` / `tracestate` parser (`TraceContext.parse`) on arbitrary bytes: never a crash, and what it
/// accepts has 16- and 8-byte ids that are not all zero and writes back as a `traceparent` it accepts again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceparent(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    // The first byte splits the input into the two headers.
    let split = input.isEmpty ? 0 : min(Int(input[0]), input.count - 1) + 1
    let parent = String(decoding: input.prefix(split).dropFirst(), as: UTF8.self)
    let state = String(decoding: input.dropFirst(split), as: UTF8.self)
    guard let context = TraceContext.parse(traceparent: parent, tracestate: state) else { return 0 }
    guard context.traceID.count == 16, context.spanID.count == 8, context.traceID.contains(where: { $0 != 0 }),
        context.spanID.contains(where: { $0 != 0 })
    else { fatalError("an accepted traceparent has a malformed id") }
    guard let again = TraceContext.parse(traceparent: context.traceparent, tracestate: context.state),
        again.traceID == context.traceID, again.spanID == context.spanID, again.flags == context.flags,
        again.state == context.state
    else { fatalError("an accepted traceparent does not write back to itself") }
    return 0
}
