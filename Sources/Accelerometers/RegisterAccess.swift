import I2C

/// A driver's register access, each call one bus transaction, failures as ``SensorError``:
/// what every chip on ``I2CBus`` needs, written once. The MPU-6050 driver uses it; the ADXL345's
/// own copies of these four can go once it conforms too.
protocol RegisterAccess {
    var bus: any I2CBus { get }
    var address: I2CAddress { get }
}

extension RegisterAccess {
    func readRegister(_ register: UInt8) throws(SensorError) -> UInt8 {
        do { return try bus.readRegister(at: address, register) } catch { throw .bus(error) }
    }

    func readRegisters(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        do { return try bus.readRegisters(at: address, from: register, count: count) } catch { throw .bus(error) }
    }

    func readRegisterRuns(_ runs: [RegisterRun]) throws(SensorError) -> [[UInt8]] {
        do { return try bus.readRegisterRuns(at: address, runs) } catch { throw .bus(error) }
    }

    func writeRegister(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        do { try bus.writeRegister(at: address, register, value: value) } catch { throw .bus(error) }
    }
}

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
