import Dispatch
import Synchronization

/// Runs `body` on the cooperative pool and waits for it: libFuzzer's entry point is synchronous.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.withLock({ $0 }) else { fatalError("the harness body returned nothing") }
    return value
}

/// The fuzzer's bytes as a lossily decoded string (harnesses that need a `String` input).
public func text(_ data: UnsafeRawPointer, _ count: Int) -> String {
    String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
}

/// The fuzzer's bytes.
public func bytes(_ data: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: data, count: count))
}
