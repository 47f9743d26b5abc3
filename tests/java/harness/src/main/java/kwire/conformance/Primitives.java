package kwire.conformance;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.internals.ByteUtils;

/**
 * Test vectors for the wire primitives of kafka-wire's runtime (core/rt), written by Kafka's own
 * classes: {@link Type}, {@link ArrayOf}, {@link CompactArrayOf}, {@link ByteUtils}, and the
 * generated {@link ResponseHeaderData} for tagged-field sections. Prints one vector a line,
 * tab-separated: {@code kind value hex outcome note}; tests/java/vectors.sh writes them to
 * core/rt/tests/vectors/primitives.tsv.
 *
 * <p>Each vector is an input that Kafka reads. Its outcome is {@code ok} where Kafka reads the
 * value and writes exactly the same bytes back, {@code reencodes:HEX} where Kafka reads the value
 * but writes HEX for it, {@code unwritable:CLASS} where Kafka reads the value but its writer
 * throws CLASS for it, and {@code error:CLASS} where Kafka's reader throws CLASS (the note then
 * holds the exception's message). Values are written as: integers in decimal (unsigned varints and
 * tags unsigned), float64 as the 16 hex digits of its bits, uuid as 32 hex digits, strings, bytes
 * and records as {@code x} and their bytes in hex, arrays and tag lists in brackets, and
 * {@code null}.
 */
public final class Primitives {
    private static final HexFormat HEX = HexFormat.of();
    private static final StringBuilder OUT = new StringBuilder();

    /** How Kafka reads, writes and sizes one kind of value. */
    interface Codec {
        Object read(ByteBuffer buf);

        void write(ByteBuffer buf, Object value);

        int size(Object value);
    }

    /** A kind: its name in the vectors, Kafka's codec, and how its values are printed. */
    record Kind(String name, Codec codec, Function<Object, String> fmt) {}

    static Codec of(Type type) {
        return new Codec() {
            public Object read(ByteBuffer buf) {
                return type.read(buf);
            }

            public void write(ByteBuffer buf, Object value) {
                type.write(buf, value);
            }

            public int size(Object value) {
                return type.sizeOf(value);
            }
        };
    }

    static final Codec UVARINT = new Codec() {
        public Object read(ByteBuffer buf) {
            return ByteUtils.readUnsignedVarint(buf);
        }

        public void write(ByteBuffer buf, Object value) {
            ByteUtils.writeUnsignedVarint((Integer) value, buf);
        }

        public int size(Object value) {
            return ByteUtils.sizeOfUnsignedVarint((Integer) value);
        }
    };

    /**
     * The tagged-field section of ResponseHeaderData v1, a generated struct that knows no tags:
     * the vector is the section alone, read after a correlation id of zero.
     */
    static final Codec TAGS = new Codec() {
        public Object read(ByteBuffer buf) {
            ByteBuffer whole = ByteBuffer.allocate(4 + buf.remaining()).putInt(0).put(buf.duplicate()).flip();
            ResponseHeaderData header = new ResponseHeaderData(new ByteBufferAccessor(whole), (short) 1);
            buf.position(buf.position() + whole.position() - 4);
            return new ArrayList<>(header.unknownTaggedFields());
        }

        public void write(ByteBuffer buf, Object value) {
            buf.put(encode(value));
        }

        public int size(Object value) {
            return encode(value).remaining();
        }

        @SuppressWarnings("unchecked")
        ByteBuffer encode(Object value) {
            ResponseHeaderData header = new ResponseHeaderData();
            header.unknownTaggedFields().addAll((List<RawTaggedField>) value);
            ByteBuffer b = MessageUtil.toByteBufferAccessor(header, (short) 1).buffer();
            b.position(b.position() + 4);
            return b;
        }
    };

    static String text(Object v) {
        return v == null ? "null" : "x" + HEX.formatHex(((String) v).getBytes(StandardCharsets.UTF_8));
    }

    static String bytes(Object v) {
        if (v == null) {
            return "null";
        }
        ByteBuffer b = (v instanceof MemoryRecords r ? r.buffer() : (ByteBuffer) v).duplicate();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return "x" + HEX.formatHex(a);
    }

    static Function<Object, String> list(Function<Object, String> elem) {
        return v -> {
            if (v == null) {
                return "null";
            }
            List<String> items = new ArrayList<>();
            for (Object e : (Object[]) v) {
                items.add(elem.apply(e));
            }
            return "[" + String.join(",", items) + "]";
        };
    }

    static String tags(Object v) {
        List<String> items = new ArrayList<>();
        for (Object o : (List<?>) v) {
            RawTaggedField t = (RawTaggedField) o;
            items.add(Integer.toUnsignedString(t.tag()) + ":x" + HEX.formatHex(t.data()));
        }
        return "[" + String.join(",", items) + "]";
    }

    static final Function<Object, String> DEC = String::valueOf;

    static final Kind INT8 = new Kind("int8", of(Type.INT8), DEC);
    static final Kind INT16 = new Kind("int16", of(Type.INT16), DEC);
    static final Kind INT32 = new Kind("int32", of(Type.INT32), DEC);
    static final Kind INT64 = new Kind("int64", of(Type.INT64), DEC);
    static final Kind UINT16 = new Kind("uint16", of(Type.UINT16), DEC);
    static final Kind UINT32 = new Kind("uint32", of(Type.UNSIGNED_INT32), DEC);
    static final Kind FLOAT64 = new Kind("float64", of(Type.FLOAT64),
            v -> String.format("%016x", Double.doubleToRawLongBits((Double) v)));
    static final Kind BOOL = new Kind("bool", of(Type.BOOLEAN), DEC);
    static final Kind UUID = new Kind("uuid", of(Type.UUID), v -> String.format("%016x%016x",
            ((Uuid) v).getMostSignificantBits(), ((Uuid) v).getLeastSignificantBits()));
    static final Kind UVAR = new Kind("uvarint", UVARINT, v -> Integer.toUnsignedString((Integer) v));
    static final Kind VARINT = new Kind("varint", of(Type.VARINT), DEC);
    static final Kind VARLONG = new Kind("varlong", of(Type.VARLONG), DEC);
    static final Kind STRING = new Kind("string", of(Type.STRING), Primitives::text);
    static final Kind CSTRING = new Kind("compact_string", of(Type.COMPACT_STRING), Primitives::text);
    static final Kind NSTRING = new Kind("nullable_string", of(Type.NULLABLE_STRING), Primitives::text);
    static final Kind CNSTRING = new Kind("compact_nullable_string", of(Type.COMPACT_NULLABLE_STRING),
            Primitives::text);
    static final Kind BYTES = new Kind("bytes", of(Type.BYTES), Primitives::bytes);
    static final Kind CBYTES = new Kind("compact_bytes", of(Type.COMPACT_BYTES), Primitives::bytes);
    static final Kind NBYTES = new Kind("nullable_bytes", of(Type.NULLABLE_BYTES), Primitives::bytes);
    static final Kind CNBYTES = new Kind("compact_nullable_bytes", of(Type.COMPACT_NULLABLE_BYTES),
            Primitives::bytes);
    static final Kind RECORDS = new Kind("records", of(Type.RECORDS), Primitives::bytes);
    static final Kind CRECORDS = new Kind("compact_records", of(Type.COMPACT_RECORDS), Primitives::bytes);
    static final Kind NRECORDS = new Kind("nullable_records", of(Type.NULLABLE_RECORDS), Primitives::bytes);
    static final Kind CNRECORDS = new Kind("compact_nullable_records", of(Type.COMPACT_NULLABLE_RECORDS),
            Primitives::bytes);
    static final Kind A32 = new Kind("array_int32", of(new ArrayOf(Type.INT32)), list(DEC));
    static final Kind NA32 = new Kind("nullable_array_int32", of(ArrayOf.nullable(Type.INT32)), list(DEC));
    static final Kind CA32 = new Kind("compact_array_int32", of(new CompactArrayOf(Type.INT32)), list(DEC));
    static final Kind CNA32 = new Kind("compact_nullable_array_int32", of(CompactArrayOf.nullable(Type.INT32)),
            list(DEC));
    static final Kind ASTR = new Kind("array_string", of(new ArrayOf(Type.STRING)), list(Primitives::text));
    static final Kind CASTR = new Kind("compact_array_string", of(new CompactArrayOf(Type.COMPACT_STRING)),
            list(Primitives::text));
    static final Kind TAGGED = new Kind("tags", TAGS, Primitives::tags);

    /** Kafka writes `value`; the bytes are then read as any input is. */
    static void value(Kind k, Object value) {
        ByteBuffer b = ByteBuffer.allocate(k.codec.size(value));
        k.codec.write(b, value);
        if (b.hasRemaining()) {
            throw new IllegalStateException(k.name + ": size and write disagree");
        }
        input(k, b.array());
    }

    /** Kafka reads `bytes`: one vector. */
    static void input(Kind k, byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        Object v;
        try {
            v = k.codec.read(b);
        } catch (RuntimeException e) {
            String note = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
            line(k.name, "-", bytes, "error:" + e.getClass().getSimpleName(), note);
            return;
        }
        if (b.hasRemaining()) {
            throw new IllegalStateException(k.name + " " + HEX.formatHex(bytes) + ": bytes left unread");
        }
        byte[] again;
        try {
            ByteBuffer w = ByteBuffer.allocate(k.codec.size(v));
            k.codec.write(w, v);
            again = w.array();
        } catch (RuntimeException e) {
            String note = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
            line(k.name, k.fmt.apply(v), bytes, "unwritable:" + e.getClass().getSimpleName(), note);
            return;
        }
        String outcome = Arrays.equals(again, bytes) ? "ok" : "reencodes:" + HEX.formatHex(again);
        line(k.name, k.fmt.apply(v), bytes, outcome, "");
    }

    static void hex(Kind k, String... inputs) {
        for (String h : inputs) {
            input(k, HEX.parseHex(h.replace(" ", "")));
        }
    }

    static void line(String kind, String value, byte[] bytes, String outcome, String note) {
        OUT.append(kind).append('\t').append(value).append('\t').append(HEX.formatHex(bytes)).append('\t')
                .append(outcome).append('\t').append(note).append('\n');
    }

    public static void main(String[] args) {
        OUT.append("# Wire vectors written by Kafka 4.4.0's own classes (tests/java/harness Primitives.java).\n")
                .append("# Regenerate with tests/java/vectors.sh; do not edit by hand.\n")
                .append("# kind<TAB>value<TAB>hex<TAB>outcome<TAB>note; see Primitives.java for the notation.\n");

        for (byte v : new byte[] {0, 1, -1, 127, -128}) value(INT8, v);
        for (short v : new short[] {0, 1, -1, 256, Short.MAX_VALUE, Short.MIN_VALUE}) value(INT16, v);
        for (int v : new int[] {0, 1, -1, 0x01020304, Integer.MAX_VALUE, Integer.MIN_VALUE}) value(INT32, v);
        for (long v : new long[] {0, 1, -1, 0x0102030405060708L, Long.MAX_VALUE, Long.MIN_VALUE}) value(INT64, v);
        for (int v : new int[] {0, 1, 0x8000, 0xffff}) value(UINT16, v);
        for (long v : new long[] {0, 1, 0x80000000L, 0xffffffffL}) value(UINT32, v);
        for (double v : new double[] {0.0, -0.0, 1.5, -2.25, Double.NaN, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE}) value(FLOAT64, v);
        value(BOOL, false);
        value(BOOL, true);
        hex(INT8, "");
        hex(INT16, "", "00");
        hex(INT32, "000000");
        hex(INT64, "00000000000000");
        hex(UINT16, "ff");
        hex(UINT32, "ffffff");
        hex(FLOAT64, "3ff0");
        hex(BOOL, "02", "ff", "");
        value(UUID, Uuid.ZERO_UUID);
        value(UUID, new Uuid(1, 2));
        value(UUID, new Uuid(0x0123456789abcdefL, 0xfedcba9876543210L));
        value(UUID, new Uuid(-1, -1));
        hex(UUID, "000102030405060708090a0b0c0d0e");

        for (int v : new int[] {0, 1, 127, 128, 255, 300, 16383, 16384, 2097151, 2097152, 268435455, 1 << 28,
                Integer.MAX_VALUE, Integer.MIN_VALUE, -1}) value(UVAR, v);
        // Cut short, longer than five bytes, non-minimal, and bits past 32 in the fifth byte.
        hex(UVAR, "", "80", "ffffffff", "8080808080", "808080808001", "8000", "ff00", "ffffffff1f", "ffffffff7f");
        for (int v : new int[] {0, 1, -1, 63, -64, 64, -65, 8191, -8192, Integer.MAX_VALUE, Integer.MIN_VALUE})
            value(VARINT, v);
        hex(VARINT, "", "ff", "8080808080", "8100");
        for (long v : new long[] {0, 1, -1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 35,
                Long.MAX_VALUE, Long.MIN_VALUE}) value(VARLONG, v);
        hex(VARLONG, "", "80", "80808080808080808080", "8080808080808080808001", "ffffffffffffffffff7f", "8000");

        String twoByte = "\u00e9\u20ac\ud83d\ude00"; // é, €, and an emoji outside the BMP
        String long300 = "k".repeat(300);
        for (Kind k : new Kind[] {STRING, CSTRING, NSTRING, CNSTRING}) {
            for (String s : new String[] {"", "a", "topic-1", twoByte, long300}) value(k, s);
        }
        value(NSTRING, null);
        value(CNSTRING, null);
        // Null where not allowed, other negative lengths, lengths past the end, invalid UTF-8.
        hex(STRING, "", "00", "ffff", "fffe", "8000", "000561626364", "0002c328");
        hex(NSTRING, "fffe", "8000", "0003ffff", "000561");
        hex(CSTRING, "", "00", "0461", "818002", "ffffffff0f", "03c328");
        hex(CNSTRING, "ffffffff0f", "8000", "0461");

        byte[] b300 = new byte[300];
        for (int i = 0; i < b300.length; i++) b300[i] = (byte) i;
        for (Kind k : new Kind[] {BYTES, CBYTES, NBYTES, CNBYTES}) {
            for (byte[] b : new byte[][] {{}, {0}, {1, 2, 3, (byte) 0xff}, b300}) value(k, ByteBuffer.wrap(b));
        }
        value(NBYTES, null);
        value(CNBYTES, null);
        hex(BYTES, "", "000000", "ffffffff", "fffffffe", "00000005010203", "7fffffff");
        hex(NBYTES, "fffffffe", "80000000", "0000000201");
        hex(CBYTES, "00", "0401", "ffffffff07", "80808080");
        hex(CNBYTES, "ffffffff0f", "8000", "0401");
        hex(RECORDS, "00000000", "0000000301020a", "ffffffff", "00000004aa");
        hex(NRECORDS, "00000000", "ffffffff", "0000000201");
        hex(CRECORDS, "01", "0401020a", "00", "03aa");
        hex(CNRECORDS, "01", "00", "03aa");

        for (Kind k : new Kind[] {A32, NA32, CA32, CNA32}) {
            value(k, new Object[] {});
            value(k, new Object[] {1, -1, Integer.MAX_VALUE});
        }
        value(NA32, null);
        value(CNA32, null);
        // Null where not allowed, counts past the end, and a count the bytes run out before.
        hex(A32, "ffffffff", "7fffffff", "0000000200000001", "000000", "80000000");
        hex(NA32, "fffffffe", "0000000100");
        hex(CA32, "00", "ffffffff07", "8080808008", "0300000001", "05000000010000000200000003");
        hex(CNA32, "ffffffff0f", "8000", "02ff");
        for (Kind k : new Kind[] {ASTR, CASTR}) {
            value(k, new Object[] {});
            value(k, new Object[] {"a", "", twoByte, long300});
        }
        hex(ASTR, "00000001ffff", "000000020001610002", "00000001");
        hex(CASTR, "0200", "030261", "0203c328");

        // Tagged-field sections of a struct that knows no tags.
        value(TAGGED, List.of());
        value(TAGGED, List.of(new RawTaggedField(0, new byte[] {})));
        value(TAGGED, List.of(new RawTaggedField(1, new byte[] {(byte) 0xaa, (byte) 0xbb}),
                new RawTaggedField(5, new byte[] {}), new RawTaggedField(200, new byte[] {7})));
        value(TAGGED, List.of(new RawTaggedField(Integer.MAX_VALUE - 1, b300)));
        // Out of order and repeated tags, sizes past the end, counts past the end or negative,
        // a header cut short, a tag of 2^32 - 1, and a section whose size varint is 2^32 - 1.
        hex(TAGGED, "0205000100", "0201000100", "010005aa", "050000", "ffffffff0f", "0180", "", "01ffffffff0f00",
                "0100ffffffff0f", "01010102");

        System.out.print(OUT);
    }
}
