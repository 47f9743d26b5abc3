package kwire.conformance;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;

/**
 * Random values of Kafka's generated message classes, valid at one version, set field by field
 * through reflection. What the version has comes from the class's own {@code SCHEMAS[version]}:
 * its fields, their wire types (nullable or not, compact or not) and its tagged fields. Fields the
 * version lacks keep the defaults of the generated constructor. Every field the version has is
 * set; each tagged field is set or left at its default at random; nulls appear where the wire
 * type allows them. The schemas do not say whether a struct or records field is nullable, so
 * those are tried as null now and then, and a null Kafka refuses to write is not tried again.
 */
final class Gen {
    /** "class#field@version" keys of struct and records fields that Kafka refused as null. */
    static final Set<String> NOT_NULLABLE = new HashSet<>();

    final Random r;
    final short v;
    final List<String> nullsUsed = new ArrayList<>();

    Gen(long seed, short v) {
        this.r = new Random(seed);
        this.v = v;
    }

    static final Map<Class<?>, Map<String, Field>> FIELDS = new HashMap<>();

    static String norm(String s) {
        return s.replace("_", "").toLowerCase(java.util.Locale.ROOT);
    }

    static Field javaField(Class<?> c, String schemaName) {
        Map<String, Field> m = FIELDS.computeIfAbsent(c, k -> {
            Map<String, Field> fs = new HashMap<>();
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) continue;
                f.setAccessible(true);
                fs.put(norm(f.getName()), f);
            }
            return fs;
        });
        Field f = m.get(norm(schemaName));
        if (f == null) throw new IllegalStateException(c.getName() + " has no Java field for schema field " + schemaName);
        return f;
    }

    Object struct(Class<?> c, Schema s, int depth) throws Exception {
        Object o = c.getConstructor().newInstance();
        for (BoundField bf : s.fields()) {
            org.apache.kafka.common.protocol.types.Type t = bf.def.type;
            if (t instanceof TaggedFields) {
                TaggedFields tf = (TaggedFields) t;
                for (Map.Entry<Integer, org.apache.kafka.common.protocol.types.Field> e : taggedFields(tf).entrySet()) {
                    if (r.nextInt(3) == 0) continue; // absent: keeps the default
                    Field jf = javaField(c, e.getValue().name);
                    jf.set(o, value(c, jf, e.getValue().type, depth));
                }
                if (r.nextInt(6) == 0) {
                    // Unknown tags: none of Kafka's schemas uses a tag this high.
                    List<RawTaggedField> raw = new ArrayList<>();
                    int tag = 64 + r.nextInt(200);
                    for (int i = 0, n = 1 + r.nextInt(2); i < n; i++) {
                        byte[] data = new byte[r.nextInt(8)];
                        r.nextBytes(data);
                        raw.add(new RawTaggedField(tag, data));
                        tag += 1 + r.nextInt(100000);
                    }
                    Field jf = c.getDeclaredField("_unknownTaggedFields");
                    jf.setAccessible(true);
                    jf.set(o, raw);
                }
                continue;
            }
            Field jf = javaField(c, bf.def.name);
            jf.set(o, value(c, jf, t, depth));
        }
        return o;
    }

    /** The tagged fields of a schema: {@code fields()} in 4.4.0, a private field in 3.9.1. */
    @SuppressWarnings("unchecked")
    static Map<Integer, org.apache.kafka.common.protocol.types.Field> taggedFields(TaggedFields tf) throws Exception {
        Field f = TaggedFields.class.getDeclaredField("fields");
        f.setAccessible(true);
        return (Map<Integer, org.apache.kafka.common.protocol.types.Field>) f.get(tf);
    }

    boolean tryNull(Class<?> owner, Field jf) {
        String key = owner.getName() + "#" + jf.getName() + "@" + v;
        if (NOT_NULLABLE.contains(key) || r.nextInt(6) != 0) return false;
        nullsUsed.add(key);
        return true;
    }

    Object value(Class<?> owner, Field jf, org.apache.kafka.common.protocol.types.Type t, int depth) throws Exception {
        if (t instanceof ArrayOf || t instanceof CompactArrayOf) {
            if (t.isNullable() && r.nextInt(6) == 0) return null;
            org.apache.kafka.common.protocol.types.Type et = t.arrayElementType().get();
            int max = depth == 0 ? 4 : depth < 3 ? 3 : 1;
            int n = r.nextInt(max + 1);
            Class<?> ft = jf.getType();
            if (List.class.equals(ft) || ft.isInterface()) {
                List<Object> list = new ArrayList<>();
                Class<?> ec = et instanceof Schema ? typeArg(jf.getGenericType()) : null;
                for (int i = 0; i < n; i++) list.add(scalarOrStruct(owner, jf, et, ec, depth + 1, false));
                return list;
            }
            // A generated XxxCollection (ImplicitLinkedHashMultiCollection): fill each element first.
            @SuppressWarnings("unchecked")
            Collection<Object> coll = (Collection<Object>) ft.getConstructor().newInstance();
            Class<?> ec = collectionElement(ft);
            for (int i = 0; i < n; i++) coll.add(scalarOrStruct(owner, jf, et, ec, depth + 1, false));
            return coll;
        }
        if (t instanceof Schema) {
            if (tryNull(owner, jf)) return null;
            return struct(jf.getType(), (Schema) t, depth + 1);
        }
        return scalarOrStruct(owner, jf, t, null, depth, true);
    }

    Object scalarOrStruct(Class<?> owner, Field jf, org.apache.kafka.common.protocol.types.Type t, Class<?> structClass, int depth, boolean single) throws Exception {
        if (t instanceof Schema) return struct(structClass, (Schema) t, depth);
        T k = T.of(t);
        Class<?> ft = single ? jf.getType() : null;
        switch (k) {
            case BOOLEAN: return r.nextBoolean();
            case INT8: return (byte) edgy();
            case INT16: return (short) edgy();
            case UINT16: return (int) (edgy() & 0xffff);
            case INT32: return (int) edgy();
            case UINT32: return edgy() & 0xffffffffL;
            case INT64: return edgy();
            case FLOAT64: return dbl();
            case UUID: return r.nextInt(8) == 0 ? Uuid.ZERO_UUID : new Uuid(r.nextLong(), r.nextLong());
            case STRING: return str();
            case NULLABLE_STRING: return r.nextInt(6) == 0 ? null : str();
            case BYTES:
            case NULLABLE_BYTES: {
                if (k == T.NULLABLE_BYTES && r.nextInt(6) == 0) return null;
                byte[] b = bytes();
                return ft == ByteBuffer.class ? ByteBuffer.wrap(b) : b;
            }
            case RECORDS:
            case NULLABLE_RECORDS: {
                // RECORDS is nullable in 3.9.1 when the schema says so (learned by trying);
                // 4.4.0 has a separate NULLABLE_RECORDS type.
                if (single && (k == T.NULLABLE_RECORDS ? r.nextInt(6) == 0 : tryNull(owner, jf))) return null;
                return readableRecords(jf.getType(), ByteBuffer.wrap(bytes()));
            }
            default: throw new IllegalStateException("unhandled type " + t);
        }
    }

    static final Map<Class<?>, java.lang.reflect.Method> READABLE_RECORDS = new HashMap<>();

    /**
     * {@code MemoryRecords.readableRecords(buf)}, from the package of the field's type
     * ({@code BaseRecords}): {@code common.record} in 3.9.1, {@code common.record.internal} in 4.4.0.
     */
    static Object readableRecords(Class<?> baseRecords, ByteBuffer buf) throws Exception {
        java.lang.reflect.Method m = READABLE_RECORDS.get(baseRecords);
        if (m == null) {
            Class<?> mr = Class.forName(baseRecords.getPackage().getName() + ".MemoryRecords", true, baseRecords.getClassLoader());
            m = mr.getMethod("readableRecords", ByteBuffer.class);
            READABLE_RECORDS.put(baseRecords, m);
        }
        return m.invoke(null, buf);
    }

    /** Integers biased towards edges: 0, -1, extremes and small values, else random. */
    long edgy() {
        switch (r.nextInt(8)) {
            case 0: return 0;
            case 1: return -1;
            case 2: return r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            case 3: return r.nextInt(10);
            case 4: return r.nextBoolean() ? Integer.MAX_VALUE : Integer.MIN_VALUE;
            default: return r.nextLong();
        }
    }

    double dbl() {
        switch (r.nextInt(10)) {
            case 0: return 0.0;
            case 1: return -0.0;
            case 2: return Double.NaN;
            case 3: return r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            case 4: return Double.MIN_VALUE;
            case 5: return r.nextInt(1000);
            default: return Double.longBitsToDouble(r.nextLong() & 0x7fefffffffffffffL) * (r.nextBoolean() ? 1 : -1);
        }
    }

    static final String[] PIECES = {"a", "b", "Z", "0", "-", "_", ".", " ", "é", "ß", "漢", "\uD83D\uDE00", "\"", "\\", "\n", "topic", "group"};

    String str() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0, n = r.nextInt(10); i < n; i++) sb.append(PIECES[r.nextInt(PIECES.length)]);
        return sb.toString();
    }

    byte[] bytes() {
        byte[] b = new byte[r.nextInt(24)];
        r.nextBytes(b);
        return b;
    }

    static Class<?> typeArg(Type g) {
        if (g instanceof ParameterizedType) {
            Type a = ((ParameterizedType) g).getActualTypeArguments()[0];
            if (a instanceof Class) return (Class<?>) a;
        }
        throw new IllegalStateException("no element class in " + g);
    }

    static Class<?> collectionElement(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (k.getGenericSuperclass() instanceof ParameterizedType) return typeArg(k.getGenericSuperclass());
        }
        throw new IllegalStateException("no element class for " + c);
    }

    /**
     * The scalar wire types, by identity with Kafka's {@code Type} constants, looked up by name:
     * {@code NULLABLE_RECORDS} and {@code COMPACT_NULLABLE_RECORDS} exist in 4.4.0, not in 3.9.1
     * (where {@code RECORDS} is nullable or not by the schema's nullableVersions alone).
     */
    enum T {
        BOOLEAN, INT8, INT16, UINT16, INT32, UINT32, INT64, FLOAT64, UUID, STRING, NULLABLE_STRING, BYTES, NULLABLE_BYTES, RECORDS, NULLABLE_RECORDS;

        static final Map<org.apache.kafka.common.protocol.types.Type, T> BY_TYPE = new java.util.IdentityHashMap<>();

        static {
            String[][] names = {
                {"BOOLEAN", "BOOLEAN"}, {"INT8", "INT8"}, {"INT16", "INT16"}, {"UINT16", "UINT16"}, {"INT32", "INT32"},
                {"UNSIGNED_INT32", "UINT32"}, {"INT64", "INT64"}, {"FLOAT64", "FLOAT64"}, {"UUID", "UUID"},
                {"STRING", "STRING"}, {"COMPACT_STRING", "STRING"},
                {"NULLABLE_STRING", "NULLABLE_STRING"}, {"COMPACT_NULLABLE_STRING", "NULLABLE_STRING"},
                {"BYTES", "BYTES"}, {"COMPACT_BYTES", "BYTES"},
                {"NULLABLE_BYTES", "NULLABLE_BYTES"}, {"COMPACT_NULLABLE_BYTES", "NULLABLE_BYTES"},
                {"RECORDS", "RECORDS"}, {"COMPACT_RECORDS", "RECORDS"},
                {"NULLABLE_RECORDS", "NULLABLE_RECORDS"}, {"COMPACT_NULLABLE_RECORDS", "NULLABLE_RECORDS"},
            };
            for (String[] n : names) {
                try {
                    Object t = org.apache.kafka.common.protocol.types.Type.class.getField(n[0]).get(null);
                    BY_TYPE.put((org.apache.kafka.common.protocol.types.Type) t, T.valueOf(n[1]));
                } catch (NoSuchFieldException e) {
                    // Not in this release.
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        static T of(org.apache.kafka.common.protocol.types.Type t) {
            T k = BY_TYPE.get(t);
            if (k == null) throw new IllegalStateException("unhandled wire type " + t);
            return k;
        }
    }
}
