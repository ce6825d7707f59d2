import ModelKit

// A shopping cart, written as an app team writes it against API.md: a catalog of products with
// string ids refreshed from a server, a cart of lines priced through a dependency overridden for the
// cart's subtree, a memoized total, a badge that follows the number of lines, undo of cart edits,
// and an optional checkout whose order placement is cancelled by id.

/// Prices a product for the cart (a member discount, a currency).
struct PricingClient: Sendable {
    var price: @Sendable (_ sku: String, _ listPrice: Int) -> Int
}

extension PricingClient: DependencyKey {
    static let liveValue = PricingClient { _, listPrice in listPrice }
    static let testValue = PricingClient { _, listPrice in listPrice }
}

/// Places an order for an amount; returns the order's number.
struct OrderClient: Sendable {
    var place: @Sendable (_ amount: Int) async throws -> String
}

extension OrderClient: DependencyKey {
    static let liveValue = OrderClient { _ in "live" }
    static let testValue = OrderClient { amount in "order-\(amount)" }
}

extension DependencyValues {
    var pricing: PricingClient { get { self[PricingClient.self] } set { self[PricingClient.self] = newValue } }
    var orders: OrderClient { get { self[OrderClient.self] } set { self[OrderClient.self] = newValue } }
}

/// The cancellation id of the order placement: a second tap replaces the first.
enum CheckoutID {}

struct Product: Model {
    let id: String
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var listPrice: Int

    init(id: String, name: String, listPrice: Int) {
        self.id = id
        self.name = name
        self.listPrice = listPrice
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$listPrice)
    }
}

struct CartLine: Model {
    let id: String
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var unitPrice: Int
    @Tracked var quantity: Int

    init(id: String, name: String, unitPrice: Int, quantity: Int = 1) {
        self.id = id
        self.name = name
        self.unitPrice = unitPrice
        self.quantity = quantity
    }

    func onActivate() { node.trackUndo(\.quantity) }

    func increment() { quantity += 1 }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$unitPrice)
        r.track(\.$quantity)
    }
}

struct Cart: Model {
    var node = ModelNode<Self>()
    @Tracked var lines: [CartLine] = []

    /// The sum of the lines: memoized, so views that read it re-render only when it changes.
    var total: Int {
        node.memoize { lines.reduce(0) { $0 + $1.unitPrice * $1.quantity } }
    }

    /// Whether the cart holds anything: memoized, its input (the lines) changes far more often.
    var isEmpty: Bool { node.memoize(for: "isEmpty") { lines.isEmpty } }

    func onActivate() { node.trackUndo(\.lines) }

    /// Adds one of `product`, priced through the cart's pricing client.
    func add(_ product: Product) {
        if let line = lines.first(where: { $0.id == product.id }) {
            line.increment()
        } else {
            let price = node.pricing.price(product.id, product.listPrice)
            lines.append(CartLine(id: product.id, name: product.name, unitPrice: price))
        }
    }

    func remove(_ id: String) { lines.removeAll { $0.id == id } }

    func undo() { node.undoStack.undo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$lines)
    }
}

struct Checkout: Model {
    var node = ModelNode<Self>()
    let amount: Int
    @Tracked var status = "new"
    @Tracked var orderNumber: String?
    @Tracked var isPlacing = false
    @Tracked var attempts = 0

    init(amount: Int) { self.amount = amount }

    /// Places the order; a second tap cancels the placement in flight and starts over.
    ///
    /// The placement it cancels unwinds after the new one has started (the cancellation comes with
    /// the new task), so only a placement that was not cancelled clears `isPlacing`.
    func placeOrder() {
        attempts += 1
        node.task {
            isPlacing = true
            defer { if !Task.isCancelled { isPlacing = false } }
            let number = try await node.orders.place(amount)
            orderNumber = number
            status = "placed"
        }
        .cancel(for: CheckoutID.self, cancelInFlight: true)
    }

    func cancelTapped() {
        node.cancelAll(for: CheckoutID.self)
        isPlacing = false
        status = "cancelled"
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$status)
        r.track(\.$orderNumber)
        r.track(\.$isPlacing)
        r.track(\.$attempts)
    }
}

struct Shop: Model {
    var node = ModelNode<Self>()
    @Tracked var catalog: [Product]
    @Tracked var cart: Cart
    @Tracked var checkout: Checkout?
    /// The badge on the cart tab: the number of lines.
    @Tracked var badge = 0

    init(catalog: [Product], cart: Cart = Cart()) {
        self.catalog = catalog
        self.cart = cart
    }

    func onActivate() {
        node.onChange(of: cart.lines.count) { _, count in badge = count }
    }

    func product(_ id: String) -> Product { catalog.first { $0.id == id }! }

    func addToCart(_ id: String) { cart.add(product(id)) }

    /// The server's catalog: the same products, by id, with the server's values.
    func refreshCatalog(_ products: [(id: String, name: String, listPrice: Int)]) {
        catalog = products.map { Product(id: $0.id, name: $0.name, listPrice: $0.listPrice) }
    }

    func beginCheckout() {
        checkout = Checkout(amount: cart.total).withActivation { $0.status = "ready" }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$catalog)
        r.track(\.$cart)
        r.track(\.$checkout)
        r.track(\.$badge)
    }
}
