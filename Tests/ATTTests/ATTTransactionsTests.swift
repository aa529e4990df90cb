import ATT
import Testing
import Wire

/// Core 6.0, Vol 3, Part F, §3.3.2: one request per client and, apart, one indication per server
/// outstanding on a bearer; a response or Error Response answers the request, a confirmation the
/// indication. The requests kept here are their record numbers.
@Suite struct ATTTransactionsTests {
    let request = ATTOpcode.readRequest.method
    let response = ATTOpcode.readResponse.method
    let errorResponse = ATTOpcode.errorResponse.method
    let indication = ATTOpcode.handleValueIndication.method
    let confirmation = ATTOpcode.handleValueConfirmation.method

    @Test func aResponseAnswersTheRequestOfTheOtherEnd() {
        var transactions = ATTTransactions<Int>()
        #expect(transactions.begin(1, request, from: .one) == nil)
        #expect(transactions.answer(response, from: .one) == nil)  // not from the end that asked
        #expect(transactions.answer(response, from: .other) == 1)
        #expect(transactions.answer(response, from: .other) == nil)  // answered once
        #expect(transactions.outstanding.isEmpty)
    }

    @Test func eachEndHasItsOwnOutstandingRequest() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(1, request, from: .one)
        transactions.begin(2, request, from: .other)
        #expect(transactions.outstanding == [1, 2])
        #expect(transactions.answer(response, from: .one) == 2)
        #expect(transactions.answer(response, from: .other) == 1)
    }

    @Test func anErrorResponseAnswersTheRequest() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(7, request, from: .other)
        #expect(transactions.answer(errorResponse, from: .one) == 7)
        #expect(transactions.outstanding.isEmpty)
    }

    @Test func anIndicationIsAnsweredByItsConfirmationOnly() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(3, indication, from: .other)
        #expect(transactions.answer(response, from: .one) == nil)
        #expect(transactions.answer(errorResponse, from: .one) == nil)
        #expect(transactions.answer(confirmation, from: .other) == nil)
        #expect(transactions.answer(confirmation, from: .one) == 3)
        #expect(transactions.outstanding.isEmpty)
    }

    @Test func aConfirmationAnswersNoRequest() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(4, request, from: .one)
        #expect(transactions.answer(confirmation, from: .other) == nil)
        #expect(transactions.outstanding == [4])
    }

    /// An end's client asks while its own server's indication awaits its confirmation: two
    /// transactions, each answered by its own kind of answer, in either order.
    @Test func anIndicationBesideARequestOfTheSameEnd() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(1, indication, from: .one)
        #expect(transactions.begin(2, request, from: .one) == nil)
        #expect(transactions.outstanding == [2, 1])
        #expect(transactions.answer(confirmation, from: .other) == 1)
        #expect(transactions.answer(response, from: .other) == 2)

        transactions.begin(3, request, from: .one)
        #expect(transactions.begin(4, indication, from: .one) == nil)
        #expect(transactions.answer(response, from: .other) == 3)
        #expect(transactions.answer(confirmation, from: .other) == 4)
        #expect(transactions.outstanding.isEmpty)
    }

    /// A capture that missed the answer (or a peer that broke the rule): the new request takes the
    /// place of the old, which is never answered.
    @Test func aNewRequestReplacesTheUnansweredOne() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(1, request, from: .one)
        #expect(transactions.begin(2, request, from: .one) == 1)
        #expect(transactions.outstanding == [2])
        #expect(transactions.answer(response, from: .other) == 2)
        #expect(transactions.answer(response, from: .other) == nil)

        transactions.begin(3, indication, from: .other)
        #expect(transactions.begin(4, indication, from: .other) == 3)
        #expect(transactions.answer(confirmation, from: .one) == 4)
    }

    /// With no direction recorded, every PDU comes from one unknown end: an answer pairs with the
    /// last request, whoever sent it, and never with a known end's.
    @Test func anUnknownEndAnswersItsOwnLastRequest() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(1, request, from: .one)
        transactions.begin(2, request, from: .unknown)
        #expect(transactions.begin(3, request, from: .unknown) == 2)
        #expect(transactions.answer(response, from: .unknown) == 3)
        #expect(transactions.answer(response, from: .unknown) == nil)
        #expect(transactions.outstanding == [1])
    }

    @Test func commandsAndNotificationsOpenAndAnswerNothing() {
        var transactions = ATTTransactions<Int>()
        transactions.begin(1, request, from: .one)
        transactions.begin(2, indication, from: .other)
        for method in [ATTOpcode.writeCommand.method, ATTOpcode.handleValueNotification.method, .unknown] {
            #expect(transactions.begin(9, method, from: .one) == nil)
            #expect(transactions.begin(9, method, from: .other) == nil)
            #expect(transactions.answer(method, from: .one) == nil)
            #expect(transactions.answer(method, from: .other) == nil)
        }
        #expect(transactions.outstanding == [1, 2])
    }

    @Test func theEndsOfTheHostControllerInterface() {
        #expect(ATTEnd(Direction.sent) == .one)
        #expect(ATTEnd(Direction.received) == .other)
        #expect(ATTEnd(nil) == .unknown)
        #expect(ATTEnd.one.answering == .other)
        #expect(ATTEnd.other.answering == .one)
        #expect(ATTEnd.unknown.answering == .unknown)
    }
}
