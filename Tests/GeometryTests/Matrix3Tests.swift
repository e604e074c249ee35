import Foundation
import Geometry
import GeometryTesting
import Testing

private let sample = DomainMatrix(rows: Vector3(x: 2, y: -1, z: 0), Vector3(x: 1, y: 3, z: 2), Vector3(x: 0, y: 1, z: 4))

@Suite("Matrix3")
struct Matrix3Tests {
    @Test("identity leaves a vector alone; a product is rows times columns, worked by hand")
    func multiply() {
        let v = Vector3(x: 1, y: -2, z: 3)
        #expect(DomainMatrix.identity * v == v)
        // [2 −1 0; 1 3 2; 0 1 4] · (1, −2, 3) = (4, 1, 10)
        #expect(sample * v == Vector3(x: 4, y: 1, z: 10))
        let other = DomainMatrix(rows: Vector3(x: 1, y: 0, z: 2), Vector3(x: 0, y: 1, z: 0), Vector3(x: -1, y: 0, z: 1))
        // Row 0 of sample·other: (2·1 + −1·0 + 0·−1, 2·0 + −1·1 + 0, 2·2 + 0 + 0) = (2, −1, 4)
        let product = sample * other
        #expect(product.rowArrays == [[2, -1, 4], [-1, 3, 4], [-4, 1, 4]])
        #expect((sample * .identity) == sample && (DomainMatrix.identity * sample) == sample)
        // (a·b)·v = a·(b·v)
        expectClose((sample * other) * v, sample * (other * v))
    }

    @Test("rows, columns, subscript and transpose agree")
    func access() {
        #expect(sample.row(1) == Vector3(x: 1, y: 3, z: 2))
        #expect(sample.column(1) == Vector3(x: -1, y: 3, z: 1))
        #expect(sample[2, 1] == 1 && sample[0, 0] == 2)
        #expect(sample.transpose.rowArrays == [[2, 1, 0], [-1, 3, 1], [0, 2, 4]])
        #expect(sample.transpose.transpose == sample)
        var m = sample
        m[1, 2] = 7
        #expect(m.row(1) == Vector3(x: 1, y: 3, z: 7))
        #expect(DomainMatrix(columns: sample.column(0), sample.column(1), sample.column(2)) == sample)
        #expect(DomainMatrix([[1, 2], [3, 4]]) == nil)
        #expect(DomainMatrix(sample.rowArrays) == sample)
        #expect(sample.diagonal == Vector3(x: 2, y: 3, z: 4))
    }

    @Test("determinant: 24 by hand, of a product the product, of a transpose the same")
    func determinant() {
        // 2·(3·4 − 2·1) − (−1)·(1·4 − 2·0) + 0 = 20 + 4
        #expect(sample.determinant == 24)
        #expect(DomainMatrix.identity.determinant == 1)
        var random = SplitMix64(seed: 11)
        for _ in 0..<50 {
            let a = randomMatrix(&random), b = randomMatrix(&random)
            expectClose((a * b).determinant, a.determinant * b.determinant, tolerance: 1e-9)
            expectClose(a.transpose.determinant, a.determinant, tolerance: 1e-12)
        }
    }

    @Test("inverse times the matrix is the identity, both ways, for random matrices")
    func inverse() throws {
        let inverse = try #require(sample.inverse)
        expectClose(inverse * sample, .identity, tolerance: 1e-15)
        // The adjugate over 24: element (0,0) is (3·4 − 2·1) / 24.
        expectClose(inverse[0, 0], 10.0 / 24, tolerance: 1e-15)
        var random = SplitMix64(seed: 12)
        for _ in 0..<200 {
            let a = randomMatrix(&random)
            guard a.conditionNumber < 1e6 else { continue }
            let inverse = try #require(a.inverse)
            expectClose(a * inverse, .identity, tolerance: 1e-9)
            expectClose(inverse * a, .identity, tolerance: 1e-9)
        }
    }

    @Test("inverse is nil for singular, nearly singular and non-finite matrices")
    func noInverse() {
        let singular = DomainMatrix(rows: Vector3(x: 1, y: 2, z: 3), Vector3(x: 2, y: 4, z: 6), Vector3(x: 1, y: 1, z: 1))
        #expect(singular.determinant == 0)
        #expect(singular.inverse == nil)
        #expect(DomainMatrix.zero.inverse == nil)
        let nearly = DomainMatrix(diagonal: Vector3(x: 1, y: 1, z: 1e-12))
        #expect(nearly.inverse == nil)
        #expect(nearly.inverted(maxConditionNumber: 1e13) != nil)
        #expect(DomainMatrix(diagonal: Vector3(x: 1, y: .nan, z: 1)).inverse == nil)
        #expect(DomainMatrix(diagonal: Vector3(x: 1, y: .infinity, z: 1)).inverse == nil)
        #expect(DomainMatrix(diagonal: Vector3(x: 1, y: 1, z: 1e-12)).conditionNumber > 1e12)
    }

    @Test("condition number: 1·√3·√3 for the identity estimate, between κ₂ and 3κ₂ for a diagonal")
    func condition() {
        expectClose(DomainMatrix.identity.conditionNumber, 3, tolerance: 1e-12)
        let diagonal = DomainMatrix(diagonal: Vector3(x: 10, y: 1, z: 0.1))
        #expect(diagonal.conditionNumber >= 100 && diagonal.conditionNumber <= 300)
    }

    @Test("singular values: a rotation's are 1, a diagonal's its sorted absolute values")
    func singularValues() throws {
        let rotation = try #require(Rotation(axis: Vector3(x: 1, y: 2, z: -0.5), angle: Angle(degrees: 37)))
        let columns = [Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1)].map(rotation.apply)
        let rotationMatrix = DomainMatrix(columns: columns[0], columns[1], columns[2])
        expectClose(try #require(rotationMatrix.singularValues), Vector3(x: 1, y: 1, z: 1), tolerance: 1e-12)
        let diagonal = DomainMatrix(diagonal: Vector3(x: 0.5, y: -3, z: 2))
        expectClose(try #require(diagonal.singularValues), Vector3(x: 3, y: 2, z: 0.5), tolerance: 1e-12)
        // A rotated diagonal keeps its singular values.
        expectClose(try #require((rotationMatrix * diagonal).singularValues), Vector3(x: 3, y: 2, z: 0.5), tolerance: 1e-12)
        #expect(DomainMatrix(diagonal: Vector3(x: .nan, y: 1, z: 1)).singularValues == nil)
        var random = SplitMix64(seed: 13)
        for _ in 0..<100 {
            let a = randomMatrix(&random)
            let s = try #require(a.singularValues)
            #expect(s.x >= s.y && s.y >= s.z && s.z >= 0)
            expectClose(s.x * s.y * s.z, abs(a.determinant), tolerance: 1e-9, "product = |det|")
            expectClose(s.dot(s), a.frobeniusNorm * a.frobeniusNorm, tolerance: 1e-9, "Σσ² = ‖A‖F²")
        }
    }

    @Test("Codable: three arrays of three numbers, round trip; another shape is refused")
    func codable() throws {
        let data = try JSONEncoder().encode(sample)
        #expect(String(decoding: data, as: UTF8.self) == "[[2,-1,0],[1,3,2],[0,1,4]]")
        #expect(try JSONDecoder().decode(DomainMatrix.self, from: data) == sample)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DomainMatrix.self, from: Data("[[1,0,0],[0,1,0]]".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DomainMatrix.self, from: Data("[[1,0,0],[0,1,0],[0,1]]".utf8))
        }
    }
}

private func randomMatrix(_ random: inout SplitMix64) -> DomainMatrix {
    var m = DomainMatrix.zero
    for i in 0..<3 {
        for j in 0..<3 {
            m[i, j] = random.uniform(-2...2)
        }
    }
    return m
}
