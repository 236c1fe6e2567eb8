import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Scanner;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * Adds SCRAM-SHA-512 users to a running broker (AlterUserScramCredentials), for a home whose
 * KRaft log was formatted before the broker required SASL: its users cannot be bootstrapped by
 * `kafka-storage format` any more. Run by services/devstack/kafka-scram-upgrade.ts as a single
 * source file (`java -cp 'lib/*' ScramUsers.java BROKER`); the Kafka jars hold no such tool.
 * stdin: the admin's username and password (SASL/PLAIN), then username/password line pairs to
 * upsert. Passwords never travel in argv, which every local process can read.
 */
public class ScramUsers {
  public static void main(String[] args) throws Exception {
    Scanner in = new Scanner(System.in);
    String adminUser = in.nextLine();
    String adminPassword = in.nextLine();
    List<UserScramCredentialAlteration> users = new ArrayList<>();
    while (in.hasNextLine()) {
      String user = in.nextLine();
      if (user.isEmpty() || !in.hasNextLine()) break;
      users.add(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), in.nextLine()));
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + adminUser
        + "\" password=\"" + adminPassword + "\";");
    // The broker is starting as this runs: the client waits for it rather than failing at once.
    p.put("default.api.timeout.ms", "90000");
    p.put("reconnect.backoff.max.ms", "500");
    try (Admin admin = Admin.create(p)) {
      admin.alterUserScramCredentials(users).all().get();
    }
    System.out.println("added " + users.size() + " SCRAM users");
  }
}
