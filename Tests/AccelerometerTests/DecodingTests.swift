import Accelerometers
import Geometry
import Testing

@Suite("Decoding raw samples")
struct DecodingTests {
    private func bytes(_ x: Int16, _ y: Int16, _ z: Int16) -> [UInt8] {
        [x, y, z].flatMap { value in
            let bits = UInt16(bitPattern: value)
            return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
        }
    }

    @Test func fullResolutionIs256CountsPerGAtEveryRange() {
        for range in ADXL345Range.allCases {
            let format = ADXL345SampleFormat(range: range, fullResolution: true, leftJustified: false)
            let (gravity, clipped) = ADXL345.decode(bytes(256, -256, 128), format: format)
            #expect(gravity == Vector3(x: 1, y: -1, z: 0.5))
            #expect(!clipped)
        }
    }

    @Test(arguments: [(ADXL345Range.g2, 256.0), (.g4, 128), (.g8, 64), (.g16, 32)])
    func tenBitScaleHalvesPerRangeStep(range: ADXL345Range, countsPerG: Double) {
        let format = ADXL345SampleFormat(range: range, fullResolution: false, leftJustified: false)
        let (gravity, _) = ADXL345.decode(bytes(100, -100, 0), format: format)
        #expect(gravity.x == 100 / countsPerG)
        #expect(gravity.y == -100 / countsPerG)
    }

    @Test func fullScaleCountsAreTheRailsAndReportedAsClipped() {
        // ±16 g full resolution is 13 bits: −4096…4095.
        let format = ADXL345SampleFormat(range: .g16, fullResolution: true, leftJustified: false)
        let (gravity, clipped) = ADXL345.decode(bytes(4095, -4096, 0), format: format)
        #expect(gravity.x == 4095.0 / 256)
        #expect(gravity.y == -16)
        #expect(clipped)
    }

    @Test func leftJustifiedDataShiftsDownWithItsSign() {
        // 10-bit ±2 g, MSB-aligned: the value sits in bits 15…6.
        let format = ADXL345SampleFormat(range: .g2, fullResolution: false, leftJustified: true)
        let (gravity, _) = ADXL345.decode(bytes(256 << 6, -256 << 6, -1 << 6), format: format)
        #expect(gravity == Vector3(x: 1, y: -1, z: -1 / 256))
    }

    @Test func strayHighBitsOfRightJustifiedDataDoNotFlipTheSign() {
        // 10-bit data whose upper bits are not a sign extension still decodes from its 10 bits.
        let format = ADXL345SampleFormat(range: .g2, fullResolution: false, leftJustified: false)
        let (gravity, _) = ADXL345.decode([0x00, 0x41, 0xFF, 0x03, 0x00, 0x00], format: format)
        #expect(gravity.x == 1)  // 0x4100 → low 10 bits 0x100 = 256
        #expect(gravity.y == -1.0 / 256)  // 0x03FF → −1 in 10 bits
    }
}
