/// Runs `body`, then `restore` whatever `body` did: a self-test must never leave its force on.
/// `body`'s error wins; `restore`'s is thrown only when `body` succeeded.
func runThenRestore<Value>(_ body: () throws(SensorError) -> Value,
                           restore: () throws(SensorError) -> Void) throws(SensorError) -> Value {
    let result: Result<Value, SensorError>
    do { result = .success(try body()) } catch { result = .failure(error) }
    do {
        try restore()
    } catch {
        if case .success = result { throw error }
    }
    return try result.get()
}
