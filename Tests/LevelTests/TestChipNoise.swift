import Geometry
import Level

/// The noise of a typical accelerometer at rest, for the level tests, which know no chip:
/// 0.75 / 0.75 / 1.1 LSB of 1/256 g rms up to 100 Hz, growing √2 per doubling
/// of the rate above (the ADXL345's datasheet figures, which its driver's description owns;
/// AccelerometerTests checks the two agree).
enum TestChipNoise {
    static func rms(odrHz: Double) -> Vector3 {
        let odr = odrHz.isNaN ? 3200 : min(max(odrHz, 0.1), 3200)
        return Vector3(x: 0.75, y: 0.75, z: 1.1) * ((odr > 100 ? (odr / 100).squareRoot() : 1) / 256)
    }

    static func stability(odrHz: Double) -> Stability {
        Stability(expectedNoise: rms(odrHz: odrHz))
    }
}
