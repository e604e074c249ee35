import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedMPU6050
import Testing

/// The simulated part on its own, register by register, as the register maps describe the chip.
@Suite("Simulated MPU-6050 family: registers and FIFO")
struct SimulatedMPU6050Tests {
    let clock = ManualSimulationClock()

    func chip(_ variant: MPU6050Variant = .mpu6050, whoAmI: UInt8? = nil) -> SimulatedMPU6050 {
        SimulatedMPU6050(configuration: .init(variant: variant, whoAmI: whoAmI, noiseDensity: 0), clock: clock)
    }

    func write(_ chip: SimulatedMPU6050, _ register: UInt8, _ value: UInt8) throws {
        try chip.writeRegister(at: chip.address, register, value: value)
    }

    @Test func resetValuesAndAReadOnlyWhoAmI() throws {
        let mpu6050 = chip()
        #expect(mpu6050.isAsleep, "the MPU-6050 powers on asleep (PWR_MGMT_1 0x40)")
        #expect(try mpu6050.readRegister(at: mpu6050.address, 0x75) == 0x68)
        try write(mpu6050, 0x75, 0x12)
        #expect(try mpu6050.readRegister(at: mpu6050.address, 0x75) == 0x68)
        #expect(try chip(.mpu9250).readRegister(at: mpu6050.address, 0x75) == 0x71)
        #expect(try chip(whoAmI: 0x98).readRegister(at: mpu6050.address, 0x75) == 0x98)
        try write(mpu6050, 0x6B, 0x01)
        try write(mpu6050, 0x19, 7)
        try write(mpu6050, 0x6B, 0x80)
        #expect(mpu6050.isAsleep && mpu6050.storedRegister(0x19) == 0, "DEVICE_RESET restores the reset values")
    }

    @Test func theSampleClockFollowsTheDividerAndTheFilter() throws {
        let part = chip()
        try write(part, 0x6B, 0x01)
        try write(part, 0x1A, 0x03)
        try write(part, 0x19, 4)
        #expect(part.sampleRateHz == 200 && part.bandwidthHz == 44)
        try write(part, 0x1A, 0x00)
        #expect(part.sampleRateHz == 1600, "with the DLPF off the divider counts from 8 kHz")
        let mpu6500 = chip(.mpu6500)
        try write(mpu6500, 0x1D, 0x02)
        #expect(mpu6500.bandwidthHz == 92)
        try write(mpu6500, 0x1D, 0x08)
        #expect(mpu6500.bandwidthHz == 1130, "ACCEL_FCHOICE_B bypasses the filter")
    }

    @Test func theFIFOPopsWithoutAutoIncrementAndCountsBigEndian() throws {
        let part = SimulatedMPU6050(configuration: .init(scene: .fixed(Vector3(x: 0.5, y: -0.25, z: 0.75)), noiseDensity: 0),
                                    clock: clock)
        try write(part, 0x6B, 0x01)
        try write(part, 0x1A, 0x01)
        try write(part, 0x19, 0)
        try write(part, 0x23, 0x08)
        try write(part, 0x6A, 0x40)
        clock.advance(by: 0.05)
        let count = try part.readRegisters(at: part.address, from: 0x72, count: 2)
        #expect(Int(count[0]) << 8 | Int(count[1]) == 300)
        let bytes = try part.readRegisters(at: part.address, from: 0x74, count: 12)
        #expect(bytes == [0x20, 0x00, 0xF0, 0x00, 0x30, 0x00, 0x20, 0x00, 0xF0, 0x00, 0x30, 0x00])
        #expect(part.fifoByteCount == 288)
        try write(part, 0x6A, 0x44)
        #expect(part.fifoByteCount == 0 && part.storedRegister(0x6A) == 0x40, "FIFO_RESET empties it and clears itself")
    }

    @Test func aFullFIFOOverwritesItsOldestBytesAndFlagsItOnlyWhenEnabled() throws {
        for enabled in [false, true] {
            let part = chip()
            try write(part, 0x6B, 0x01)
            try write(part, 0x1A, 0x01)
            if enabled { try write(part, 0x38, 0x10) }
            try write(part, 0x23, 0x08)
            try write(part, 0x6A, 0x40)
            clock.advance(by: 0.5)
            #expect(part.fifoByteCount == 1024)
            #expect(part.statistics.bytesLost > 0)
            let status = try part.readRegister(at: part.address, 0x3A)
            #expect(status & 0x10 == (enabled ? 0x10 : 0))
            #expect(try part.readRegister(at: part.address, 0x3A) & 0x10 == 0, "reading INT_STATUS clears it")
        }
    }

    @Test func selfTestCodesSitInTheirRegisters() throws {
        let mpu6050 = SimulatedMPU6050(configuration: .init(selfTestCodes: [22, 9, 31]), clock: clock)
        let registers = try mpu6050.readRegisters(at: mpu6050.address, from: 0x0D, count: 4)
        #expect(registers == [0b1010_0000, 0b0100_0000, 0b1110_0000, 0b10_01_11])
        let mpu6500 = SimulatedMPU6050(configuration: .init(variant: .mpu6500, selfTestCodes: [7, 8, 9]), clock: clock)
        #expect(try mpu6500.readRegisters(at: mpu6500.address, from: 0x0D, count: 3) == [7, 8, 9])
    }
}
