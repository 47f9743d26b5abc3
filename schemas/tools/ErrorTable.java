// Prints Kafka's error table as tab-separated lines: code, name, the exception class's simple
// name (empty for NONE), and whether Kafka's client treats the error as retriable (its exception
// is a RetriableException). Facts only: Kafka's descriptive messages are not read.
//
// Run with kafka-clients (and its slf4j-api dependency) on the class path; see errors.sh.
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

public class ErrorTable {
    public static void main(String[] args) {
        System.out.println("code\tname\texception\tretriable");
        for (Errors e : Errors.values()) {
            Exception ex = e.exception();
            String cls = ex == null ? "" : ex.getClass().getSimpleName();
            boolean retriable = ex instanceof RetriableException;
            System.out.println(e.code() + "\t" + e.name() + "\t" + cls + "\t" + retriable);
        }
    }
}
