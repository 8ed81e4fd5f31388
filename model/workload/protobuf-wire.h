// SPDX-License-Identifier: GPL-2.0-only
#ifndef PROTOBUF_WIRE_H
#define PROTOBUF_WIRE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A scalar value read from protobuf data (or from protobuf's JSON mapping), reduced to
 * what trace readers need: integers of every kind share one sign-and-magnitude form.
 */
struct ProtobufValue
{
    /// What the value holds.
    enum class Kind
    {
        INTEGER, //!< any integer kind or bool
        REAL,    //!< double or float
        TEXT,    //!< string
        OTHER,   //!< lists, bytes, messages: not decoded
    };

    Kind kind{Kind::OTHER}; //!< what the value holds
    bool negative{false};   //!< INTEGER: sign
    uint64_t magnitude{0};  //!< INTEGER: absolute value
    double real{0};         //!< REAL: the value
    std::string text;       //!< TEXT: the value

    /**
     * \param v a signed integer
     * \return an INTEGER value
     */
    static ProtobufValue FromSigned(int64_t v);

    /**
     * \param v an unsigned integer
     * \return an INTEGER value
     */
    static ProtobufValue FromUnsigned(uint64_t v);

    /**
     * \param v a floating-point number
     * \return a REAL value
     */
    static ProtobufValue FromReal(double v);

    /**
     * \param v a string
     * \return a TEXT value
     */
    static ProtobufValue FromText(std::string v);
};

/**
 * \ingroup ai-fabric
 * The scalar types of the protobuf language, each with its own encoding on the wire.
 */
enum class ProtobufScalarType
{
    DOUBLE,   //!< IEEE 754 64-bit, fixed 8 bytes
    FLOAT,    //!< IEEE 754 32-bit, fixed 4 bytes
    INT32,    //!< two's complement varint (negatives sign-extended to 64 bits)
    INT64,    //!< two's complement varint
    UINT32,   //!< varint
    UINT64,   //!< varint
    SINT32,   //!< zigzag varint
    SINT64,   //!< zigzag varint
    FIXED32,  //!< unsigned, fixed 4 bytes
    FIXED64,  //!< unsigned, fixed 8 bytes
    SFIXED32, //!< two's complement, fixed 4 bytes
    SFIXED64, //!< two's complement, fixed 8 bytes
    BOOL,     //!< varint, 0 or not
};

/**
 * \ingroup ai-fabric
 * Reads the protobuf wire format (https://protobuf.dev/programming-guides/encoding/)
 * from a bounded byte range, without a protobuf dependency.
 *
 * Every read checks the bounds first, so no input can make it read outside the range or
 * loop without progress: lengths are bounded by what is left of the range, varints
 * longer than 10 bytes or beyond 64 bits are errors, and so are the wire types protobuf
 * no longer uses (3 and 4, groups) or never defined (6 and 7).
 *
 * A failed read returns false and leaves a message in Error() that starts with the byte
 * offset of the problem; offsets count from the start of the file (or whatever the
 * outermost reader was given), also in the readers of nested messages.
 */
class ProtobufWireReader
{
  public:
    static constexpr uint32_t VARINT = 0;           //!< wire type of varint fields
    static constexpr uint32_t FIXED64 = 1;          //!< wire type of 8-byte fields
    static constexpr uint32_t LENGTH_DELIMITED = 2; //!< wire type of strings, messages, packed
    static constexpr uint32_t FIXED32 = 5;          //!< wire type of 4-byte fields

    /**
     * Handles one field of a message; see ForEachField.
     * The first argument is the field number, the second its wire type. The handler must
     * read (or skip) the field's value from the reader, and return false on failure.
     */
    using FieldHandler = std::function<bool(uint32_t, uint32_t)>;

    /**
     * \param data the bytes to read (not copied: must outlive the reader)
     * \param size number of bytes
     * \param base offset of data[0] in the file, for error messages
     */
    ProtobufWireReader(const uint8_t* data = nullptr, size_t size = 0, size_t base = 0);

    /// \return whether all bytes have been read
    bool AtEnd() const;

    /// \return the file offset of the next byte to read
    size_t Offset() const;

    /// \return the problem of the last failed read ("" if none)
    const std::string& Error() const;

    /**
     * Record a problem at the current offset.
     * \param reason what is wrong
     * \return false
     */
    bool Fail(const std::string& reason);

    /**
     * Take over the problem of a reader of a nested message (its offsets are file
     * offsets already).
     * \param inner the reader that failed
     * \return false
     */
    bool Propagate(const ProtobufWireReader& inner);

    /**
     * Read a base-128 varint.
     * \param v set to the value
     * \return false if cut off, longer than 10 bytes or beyond 64 bits
     */
    bool ReadVarint(uint64_t& v);

    /**
     * Read a little-endian fixed-width value (wire types FIXED64 and FIXED32).
     * \param width 8 or 4 bytes
     * \param v set to the value
     * \return false if cut off
     */
    bool ReadFixed(size_t width, uint64_t& v);

    /**
     * Read a field's tag.
     * \param field set to the field number
     * \param wireType set to the wire type
     * \return false if unreadable, the field number is 0 or beyond 2^29-1, or the wire
     *         type is not one of VARINT, FIXED64, LENGTH_DELIMITED and FIXED32
     */
    bool ReadTag(uint32_t& field, uint32_t& wireType);

    /**
     * Read a length-delimited payload (a string, bytes, nested message or packed list).
     * \param payload set to a reader of the payload
     * \return false if unreadable or the length runs past the end of this reader
     */
    bool ReadLengthDelimited(ProtobufWireReader& payload);

    /**
     * Read a length-delimited payload as a string.
     * \param s set to the payload
     * \return false as ReadLengthDelimited
     */
    bool ReadString(std::string& s);

    /**
     * Skip a field's value, as protobuf does with unknown fields.
     * \param wireType the field's wire type (as ReadTag accepts)
     * \return false if the value is unreadable
     */
    bool SkipValue(uint32_t wireType);

    /**
     * Check that a field has the wire type its schema gives it.
     * \param field the field number
     * \param name the field name, for the message
     * \param wireType the wire type read
     * \param expected the wire type of the schema
     * \return false if they differ
     */
    bool ExpectWireType(uint32_t field, const char* name, uint32_t wireType, uint32_t expected);

    /**
     * Read one occurrence of a repeated varint field (uint64, int64, ...), which is either
     * a single value (wire type VARINT) or a packed list (LENGTH_DELIMITED).
     * \param field the field number
     * \param name the field name, for the message
     * \param wireType the wire type read
     * \param values the values read are appended to it
     * \return false if the wire type is neither or a value is unreadable
     */
    bool ReadRepeatedVarint(uint32_t field,
                            const char* name,
                            uint32_t wireType,
                            std::vector<uint64_t>& values);

    /**
     * Read a scalar field of a known type.
     * \param field the field number
     * \param name the field name, for the message
     * \param wireType the wire type read (must be the one of type)
     * \param type the field's type in the schema
     * \param value set to the value
     * \return false if the wire type is wrong or the value unreadable
     */
    bool ReadScalar(uint32_t field,
                    const char* name,
                    uint32_t wireType,
                    ProtobufScalarType type,
                    ProtobufValue& value);

    /**
     * Read the fields of a message up to the end of this reader, each through a handler.
     * \param onField called with each field's number and wire type, after its tag
     * \return false at the first unreadable tag or failing handler
     */
    bool ForEachField(const FieldHandler& onField);

    /**
     * Check that the rest of this reader is a well-formed message, skipping its fields.
     * \return false at the first unreadable field
     */
    bool SkipMessage();

  private:
    const uint8_t* m_data; //!< the bytes
    size_t m_size;         //!< number of bytes
    size_t m_base;         //!< file offset of m_data[0]
    size_t m_pos{0};       //!< next byte to read
    std::string m_error;   //!< the last problem
};

/**
 * \ingroup ai-fabric
 * \param type a scalar type
 * \return the wire type it is encoded with
 */
uint32_t ProtobufWireTypeOf(ProtobufScalarType type);

/**
 * \ingroup ai-fabric
 * Interpret the raw bits of a scalar as read from the wire.
 * \param type the scalar's type
 * \param bits the varint or the little-endian fixed-width value
 * \return the value (32-bit types use the low 32 bits, as protobuf does)
 */
ProtobufValue DecodeProtobufScalar(ProtobufScalarType type, uint64_t bits);

} // namespace ns3

#endif // PROTOBUF_WIRE_H
