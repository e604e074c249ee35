import Testing
import Vibration
import VibrationVocabulary

@Suite("ISO 10816 zone table")
struct ZoneTableTests {
    @Test("Class I's boundaries split the zones, a boundary belonging to the better zone")
    func classIBoundaries() {
        let table = MachineClass.classI
        #expect(table.zone(velocityRMS: 0) == .a)
        #expect(table.zone(velocityRMS: 0.71) == .a)
        #expect(table.zone(velocityRMS: 0.7101) == .b)
        #expect(table.zone(velocityRMS: 1.8) == .b)
        #expect(table.zone(velocityRMS: 1.81) == .c)
        #expect(table.zone(velocityRMS: 4.5) == .c)
        #expect(table.zone(velocityRMS: 4.51) == .d)
        #expect(table.zone(velocityRMS: .nan) == .d)
        #expect(table.zone(velocityRMS: .infinity) == .d)
    }

    @Test("Every class's boundaries rise, and each zone is reachable", arguments: MachineClass.allCases)
    func boundariesRise(machine: MachineClass) {
        let b = machine.boundaries
        #expect(0 < b.ab && b.ab < b.bc && b.bc < b.cd)
        let zones = [b.ab / 2, (b.ab + b.bc) / 2, (b.bc + b.cd) / 2, b.cd * 2].map(machine.zone(velocityRMS:))
        #expect(zones == [.a, .b, .c, .d])
    }

    @Test("The band at 100 Hz is 10–39.06 Hz, at 800 Hz 10–312.5 Hz, at 3200 Hz the full ISO band")
    func bands() throws {
        let slow = try #require(VelocityBand(rateHz: 100))
        #expect(slow.low == 10)
        #expect(abs(slow.high - 39.0625) < 1e-9)
        #expect(try #require(VelocityBand(rateHz: 800)).high == 312.5)
        #expect(try #require(VelocityBand(rateHz: 3200)).isFullISOBand)
        #expect(VelocityBand(rateHz: 25) == nil)
        #expect(VelocityBand(rateHz: .nan) == nil)
    }

    @Test("Running thresholds parse with a unit or as mm/s, and refuse the rest")
    func runningThresholds() throws {
        #expect(try RunningThreshold(parsing: "0.5 mm/s") == RunningThreshold(value: 0.5, unit: .millimetresPerSecond))
        #expect(try RunningThreshold(parsing: " 2mm/s ") == RunningThreshold(value: 2, unit: .millimetresPerSecond))
        #expect(try RunningThreshold(parsing: "0.02 g") == RunningThreshold(value: 0.02, unit: .gravities))
        #expect(try RunningThreshold(parsing: "1.5").unit == .millimetresPerSecond)
        #expect(RunningThreshold.default.description == "1 mm/s")
        for bad in ["", "mm/s", "0 mm/s", "-1 g", "nan g", "inf", "1 m/s", "1 G"] {
            #expect(throws: RunningThresholdParseError.self, "\(bad)") { try RunningThreshold(parsing: bad) }
        }
    }
}
