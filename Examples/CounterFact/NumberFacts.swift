/// Facts about a whole number that need no network: its primality, divisors, digits and a few
/// famous sequences it may belong to.
///
/// ```swift
/// NumberFacts.all(about: 6)[0]   // "6 is not prime: 6 = 2 × 3."
/// ```
nonisolated enum NumberFacts {
    /// At least one fact about `number`, the most telling first.
    static func all(about number: Int) -> [String] {
        guard number != 0 else {
            return [
                "0 is neither prime nor composite: every whole number divides it.",
                "0 is the only number that is neither positive nor negative.",
                "0 is even: it is 2 × 0.",
            ]
        }
        guard number > 0 else {
            let size = number.magnitude
            return ["\(number) is negative; \(size) is its distance from zero."]
                + all(about: Int(size)).map { "Seen from the other side of zero: \($0)" }
        }
        var facts = [primality(of: number), divisors(of: number), digits(of: number)]
        facts.append(contentsOf: sequences(containing: number))
        let binary = String(number, radix: 2)
        let hexadecimal = String(number, radix: 16, uppercase: true)
        facts.append("\(number) is \(binary) in binary and \(hexadecimal) in hexadecimal.")
        return facts
    }

    private static func primality(of number: Int) -> String {
        if number == 1 { return "1 is neither prime nor composite: its only divisor is itself." }
        let factors = primeFactors(of: number)
        if factors.count == 1 { return "\(number) is a prime number." }
        return "\(number) is not prime: \(number) = \(factors.map(String.init).joined(separator: " × "))."
    }

    private static func divisors(of number: Int) -> String {
        let divisors = (1...number).filter { number % $0 == 0 }
        let list = divisors.count == 1 ? "1" : divisors.dropLast().map(String.init).joined(separator: ", ")
            + " and \(divisors.last!)"
        let sum = divisors.dropLast().reduce(0, +)
        let kind = sum == number ? "perfect" : sum > number ? "abundant" : "deficient"
        return "\(number) has \(divisors.count) divisor\(divisors.count == 1 ? "" : "s") (\(list)); "
            + "its proper divisors add up to \(sum), so it is \(kind)."
    }

    private static func digits(of number: Int) -> String {
        let digits = String(number).compactMap(\.wholeNumberValue)
        let sum = digits.reduce(0, +)
        let parity = number.isMultiple(of: 2) ? "even" : "odd"
        if digits.count == 1 {
            return "\(number) is \(parity), and written with a single digit."
        }
        return "\(number) is \(parity); its \(digits.count) digits add up to \(sum)"
            + (String(String(number).reversed()) == String(number) ? ", and it reads the same backwards." : ".")
    }

    private static func sequences(containing number: Int) -> [String] {
        var facts: [String] = []
        let root = Int(Double(number).squareRoot())
        if root * root == number { facts.append("\(number) is a perfect square: \(root) × \(root).") }
        let side = Int((Double(8 * number + 1).squareRoot() - 1) / 2)
        if side * (side + 1) / 2 == number {
            facts.append("\(number) is triangular: \(number) dots make a triangle with \(side) on a side.")
        }
        var (a, b) = (1, 2)
        while a < number { (a, b) = (b, a + b) }
        if a == number { facts.append("\(number) is a Fibonacci number.") }
        return facts
    }

    private static func primeFactors(of number: Int) -> [Int] {
        var factors: [Int] = []
        var rest = number
        var divisor = 2
        while divisor * divisor <= rest {
            while rest % divisor == 0 {
                factors.append(divisor)
                rest /= divisor
            }
            divisor += 1
        }
        if rest > 1 { factors.append(rest) }
        return factors
    }
}
