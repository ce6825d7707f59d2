import Foundation

/// Values that cannot hold a model or a closure: numbers, strings, dates and collections of them.
///
/// When a model is destructed its tracked values go back to the values it was created with, so that
/// nothing they captured (child models, closures holding other models) outlives the model. Plain data
/// cannot capture anything, so it keeps its last value and a destructed model still reads as it was.
protocol PlainData {}

func isPlainData(_ type: Any.Type) -> Bool {
    _isPOD(type) || type is any PlainData.Type
}

extension Bool: PlainData {}
extension Int: PlainData {}
extension Int8: PlainData {}
extension Int16: PlainData {}
extension Int32: PlainData {}
extension Int64: PlainData {}
extension UInt: PlainData {}
extension UInt8: PlainData {}
extension UInt16: PlainData {}
extension UInt32: PlainData {}
extension UInt64: PlainData {}
extension Float: PlainData {}
extension Double: PlainData {}
extension String: PlainData {}
extension Substring: PlainData {}
extension Character: PlainData {}
extension Duration: PlainData {}
extension Date: PlainData {}
extension UUID: PlainData {}
extension URL: PlainData {}
extension Data: PlainData {}
extension Decimal: PlainData {}
extension Optional: PlainData where Wrapped: PlainData {}
extension Array: PlainData where Element: PlainData {}
extension ContiguousArray: PlainData where Element: PlainData {}
extension Set: PlainData where Element: PlainData {}
extension Dictionary: PlainData where Key: PlainData, Value: PlainData {}
