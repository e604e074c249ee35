import I2C

/// Register access for drivers: the bus calls of ``Accelerometer/bus`` at ``Accelerometer/address``,
/// their failures wrapped as ``SensorError``. One copy for every chip.
extension Accelerometer {
    func read(_ register: UInt8) throws(SensorError) -> UInt8 {
        do { return try bus.readRegister(at: address, register) } catch { throw .bus(error) }
    }

    func readBurst(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        do { return try bus.readRegisters(at: address, from: register, count: count) } catch { throw .bus(error) }
    }

    func readRuns(_ runs: [RegisterRun]) throws(SensorError) -> [[UInt8]] {
        do { return try bus.readRegisterRuns(at: address, runs) } catch { throw .bus(error) }
    }

    func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        do { try bus.writeRegister(at: address, register, value: value) } catch { throw .bus(error) }
    }
}
