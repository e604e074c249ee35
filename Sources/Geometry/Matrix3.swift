/// A general 3×3 matrix of plain numbers, row-major, for the linear parts of calibration.
///
/// Unlike ``Rotation`` it may be anything: a scale, a shear, singular. It is small and exact on
/// purpose (no LAPACK): every operation is written out, so the results are the same on every
/// platform and easy to check by hand.
///
/// `Codable` as three arrays of three numbers, one per row: `[[1,0,0],[0,1,0],[0,0,1]]`.
public struct Matrix3: Hashable, Sendable {
    /// The rows, top to bottom.
    public var row0: Vector3
    public var row1: Vector3
    public var row2: Vector3

    /// The matrix with these rows.
    public init(rows row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// The matrix with these columns (each column is where the matrix sends a basis vector).
    public init(columns column0: Vector3, _ column1: Vector3, _ column2: Vector3) {
        self.init(
            rows: Vector3(x: column0.x, y: column1.x, z: column2.x),
            Vector3(x: column0.y, y: column1.y, z: column2.y),
            Vector3(x: column0.z, y: column1.z, z: column2.z)
        )
    }

    /// A diagonal matrix: a scale per axis.
    public init(diagonal: Vector3) {
        self.init(
            rows: Vector3(x: diagonal.x, y: 0, z: 0), Vector3(x: 0, y: diagonal.y, z: 0),
            Vector3(x: 0, y: 0, z: diagonal.z)
        )
    }

    /// From nine numbers as rows of three; nil unless there are exactly three rows of three.
    public init?(_ rows: [[Double]]) {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        self.init(
            rows: Vector3(x: rows[0][0], y: rows[0][1], z: rows[0][2]),
            Vector3(x: rows[1][0], y: rows[1][1], z: rows[1][2]),
            Vector3(x: rows[2][0], y: rows[2][1], z: rows[2][2])
        )
    }

    /// The matrix that changes nothing.
    public static let identity = Matrix3(diagonal: Vector3(x: 1, y: 1, z: 1))

    /// All zeros.
    public static let zero = Matrix3(diagonal: .zero)

    /// The rows as arrays, top to bottom: `rowArrays[i][j]` is row i, column j.
    public var rowArrays: [[Double]] {
        [row0, row1, row2].map { [$0.x, $0.y, $0.z] }
    }

    /// Row `i` (0, 1 or 2). Traps on any other index, like an array.
    public func row(_ i: Int) -> Vector3 {
        switch i {
        case 0: row0
        case 1: row1
        case 2: row2
        default: preconditionFailure("Matrix3 has rows 0, 1 and 2, not \(i)")
        }
    }

    /// Column `j` (0, 1 or 2). Traps on any other index.
    public func column(_ j: Int) -> Vector3 {
        transpose.row(j)
    }

    /// The element in row `i`, column `j` (each 0, 1 or 2). Traps on any other index.
    public subscript(i: Int, j: Int) -> Double {
        get {
            let r = row(i)
            switch j {
            case 0: return r.x
            case 1: return r.y
            case 2: return r.z
            default: preconditionFailure("Matrix3 has columns 0, 1 and 2, not \(j)")
            }
        }
        set {
            var r = row(i)
            switch j {
            case 0: r.x = newValue
            case 1: r.y = newValue
            case 2: r.z = newValue
            default: preconditionFailure("Matrix3 has columns 0, 1 and 2, not \(j)")
            }
            switch i {
            case 0: row0 = r
            case 1: row1 = r
            default: row2 = r
            }
        }
    }

    /// The diagonal, top-left to bottom-right.
    public var diagonal: Vector3 { Vector3(x: row0.x, y: row1.y, z: row2.z) }

    /// Whether all nine numbers are finite.
    public var isFinite: Bool { row0.isFinite && row1.isFinite && row2.isFinite }

    /// Rows become columns.
    public var transpose: Matrix3 { Matrix3(columns: row0, row1, row2) }

    /// The determinant, by cofactors along the first row: the scalar triple product of the rows.
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// The Frobenius norm: the square root of the sum of the squares of all nine numbers.
    public var frobeniusNorm: Double {
        (row0.dot(row0) + row1.dot(row1) + row2.dot(row2)).squareRoot()
    }

    /// The adjugate (transpose of the cofactor matrix): `m · adjugate = det(m) · I`.
    ///
    /// The columns of the adjugate are the cross products of pairs of rows, which is the whole
    /// of Cramer's rule for 3×3 and needs no pivoting.
    public var adjugate: Matrix3 {
        Matrix3(columns: row1.cross(row2), row2.cross(row0), row0.cross(row1))
    }

    /// The condition number estimated as ‖M‖_F · ‖M⁻¹‖_F; infinite for a singular or
    /// non-finite matrix.
    ///
    /// It is never below the true 2-norm condition number and at most 3 times it, which is good
    /// enough to tell a usable matrix from a nearly singular one, and it costs no iteration.
    public var conditionNumber: Double {
        let det = determinant
        guard isFinite, det != 0, det.isFinite else { return .infinity }
        let estimate = frobeniusNorm * adjugate.frobeniusNorm / abs(det)
        return estimate.isFinite ? estimate : .infinity
    }

    /// The default limit for ``inverted(maxConditionNumber:)``: beyond about 10¹⁰ a double
    /// carries fewer than six significant digits through the inverse, far too few for milli-g.
    public static let defaultMaxConditionNumber = 1e10

    /// The inverse, or nil when the matrix is singular, not finite, or so ill-conditioned
    /// (``conditionNumber`` above `maxConditionNumber`) that the inverse would be mostly rounding.
    public func inverted(maxConditionNumber: Double = Matrix3.defaultMaxConditionNumber) -> Matrix3? {
        let condition = conditionNumber
        guard condition.isFinite, condition <= maxConditionNumber else { return nil }
        let inverse = adjugate * (1 / determinant)
        return inverse.isFinite ? inverse : nil
    }

    /// The inverse with the default conditioning limit; see ``inverted(maxConditionNumber:)``.
    public var inverse: Matrix3? { inverted() }

    /// The singular values, largest first: how much the matrix stretches space along its three
    /// principal directions. A rotation has (1, 1, 1); nil for a non-finite matrix.
    ///
    /// Computed as the square roots of the eigenvalues of MᵀM by cyclic Jacobi rotations, which
    /// converge in a handful of sweeps for 3×3 and are accurate to rounding relative to the
    /// largest value; a value far smaller than the largest (near-singular) is less accurate,
    /// which does not matter for checking that a calibration matrix is near 1.
    public var singularValues: Vector3? {
        guard isFinite else { return nil }
        let eigen = Matrix3.symmetricEigenvalues(transpose * self)
        let values = eigen.map { max(0, $0).squareRoot() }.sorted(by: >)
        return Vector3(x: values[0], y: values[1], z: values[2])
    }

    /// Eigenvalues of a symmetric matrix (only the upper triangle is read), by cyclic Jacobi.
    static func symmetricEigenvalues(_ m: Matrix3) -> [Double] {
        var a = m.rowArrays
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let diagonal = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-32 * diagonal || off == 0 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                // The classic Jacobi rotation that zeroes a[p][q], with the smaller root of the
                // quadratic for tan θ so that the rotation is at most 45° (stable).
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
            }
        }
        return [a[0][0], a[1][1], a[2][2]]
    }

    /// `m · v`.
    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(x: m.row0.dot(v), y: m.row1.dot(v), z: m.row2.dot(v))
    }

    /// `a · b`: applies `b` first, then `a`.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let columns = b.transpose
        func row(_ r: Vector3) -> Vector3 {
            Vector3(x: r.dot(columns.row0), y: r.dot(columns.row1), z: r.dot(columns.row2))
        }
        return Matrix3(rows: row(a.row0), row(a.row1), row(a.row2))
    }

    /// Every element times `s`.
    public static func * (m: Matrix3, s: Double) -> Matrix3 { Matrix3(rows: m.row0 * s, m.row1 * s, m.row2 * s) }
    /// Every element times `s`.
    public static func * (s: Double, m: Matrix3) -> Matrix3 { m * s }

    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2)
    }

    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.row0 - b.row0, a.row1 - b.row1, a.row2 - b.row2)
    }

    /// The largest absolute difference between corresponding elements, to compare with a tolerance.
    public func maxDifference(from other: Matrix3) -> Double {
        zip(rowArrays.joined(), other.rowArrays.joined()).map { abs($0 - $1) }.max() ?? 0
    }
}

extension Matrix3: Codable {
    /// Decodes three arrays of three numbers.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the shape is not 3×3.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let rows = try container.decode([[Double]].self)
        guard let matrix = Matrix3(rows) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "A 3×3 matrix is three arrays of three numbers, one per row; found \(rows.map(\.count))."
            )
        }
        self = matrix
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rowArrays)
    }
}
