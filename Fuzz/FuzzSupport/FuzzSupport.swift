import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// What libFuzzer calls with every input: its bytes and their count (data is nil when empty).
public typealias FuzzInputHandler = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer on this process's command line (`-runs=`, corpus directories, …), calling
/// `handler` with each input, and exits with its status.
///
/// A SwiftPM executable's `main` is its top-level code (SwiftPM renames it and points `main` at
/// it), so libFuzzer's own `main` never runs: the top-level code hands over to libFuzzer's
/// driver instead.
public func runFuzzer(_ handler: FuzzInputHandler) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, handler))
}

/// Only for the link: `-sanitize=fuzzer` links libFuzzer's `main`, which needs this symbol even
/// though SwiftPM's entry point replaces that `main`. Never called; ``runFuzzer(_:)`` passes
/// each target's handler to the driver directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func libFuzzerEntryPoint(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fatalError("libFuzzer's main ran instead of the fuzz target's: call runFuzzer from main.swift")
}

/// An input's bytes as an array.
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}
