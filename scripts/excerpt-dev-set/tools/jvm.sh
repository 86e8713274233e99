# JUnit through Maven and Gradle. Neither reaches Maven Central here: both resolve from Debian's
# packaged Maven repository (/usr/share/maven-repo, from maven-debian-helper, libsurefire-java,
# junit4), Maven through a profile that points `central` at it and a fresh local repository, so it still prints the
# download log a first CI build prints.

java_library() {
  local pkg=$1/src/main/java/shop test=$1/src/test/java/shop
  mkdir -p "$pkg" "$test"
  cat >"$pkg/Cart.java" <<'EOF'
package shop;

import java.util.List;

public final class Cart {
  public static final class Item {
    final String sku;
    final String name;
    final long price;
    final long qty;

    public Item(String sku, String name, long price, long qty) {
      this.sku = sku;
      this.name = name;
      this.price = price;
      this.qty = qty;
    }
  }

  private Cart() {}

  public static long subtotal(List<Item> items) {
    return items.stream().mapToLong(item -> item.price * item.qty).sum();
  }

  /** Bug: a ten-off code can take the total below zero. */
  public static long discount(long total, String code) {
    return "TENOFF".equals(code) ? total - 1000 : total;
  }

  /** Bug: 150 cents prints as $1.5. */
  public static String formatPrice(long cents) {
    return "$" + (cents / 100.0);
  }

  /** Bug: a missing item throws instead of returning null. */
  public static String findItem(List<Item> items, String sku) {
    return items.stream().filter(item -> item.sku.equals(sku)).findFirst().get().name;
  }
}
EOF
  cat >"$test/CartTest.java" <<'EOF'
package shop;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

public class CartTest {
  @Test
  public void formatsCentsWithTwoDecimals() {
    assertEquals("$1.50", Cart.formatPrice(150));
  }

  @Test
  public void neverDiscountsBelowZero() {
    long total = Cart.discount(500, "TENOFF");
    assertTrue("discount took the total to " + total, total >= 0);
  }

  @Test
  public void findsNoMissingItem() {
    assertNull(Cart.findItem(List.of(new Cart.Item("a", "apple", 150, 2)), "zzz"));
  }
}
EOF
  for name in Subtotal Stock Shipping; do
    {
      printf 'package shop;\n\nimport static org.junit.Assert.assertEquals;\n\nimport java.util.List;\nimport org.junit.Test;\n\npublic class %sTest {\n' "$name"
      for count in $(seq 1 40); do
        printf '  @Test\n  public void adds%sLoaves() {\n    assertEquals(320L * %s, Cart.subtotal(List.of(new Cart.Item("b", "bread", 320, %s))));\n  }\n\n' "$count" "$count" "$count"
      done
      printf '}\n'
    } >"$test/${name}Test.java"
  done
}

if wanted maven && has mvn maven; then
  d=$(project maven) && java_library "$d"
  cat >"$d/pom.xml" <<'EOF'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>shop</artifactId>
  <version>1.0.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>
    </plugins>
  </build>
</project>
EOF
  cat >"$d/settings.xml" <<'EOF'
<settings>
  <profiles>
    <profile>
      <id>debian</id>
      <repositories>
        <repository><id>central</id><url>file:///usr/share/maven-repo</url><releases><checksumPolicy>ignore</checksumPolicy></releases></repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository><id>central</id><url>file:///usr/share/maven-repo</url><releases><checksumPolicy>ignore</checksumPolicy></releases></pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>debian</activeProfile></activeProfiles>
</settings>
EOF
  record maven "$d" "" "mvn -B -s settings.xml -Dmaven.repo.local=$WORK/m2 test"
fi

if wanted gradle && has gradle gradle; then
  d=$(project gradle) && java_library "$d"
  cat >"$d/build.gradle" <<'EOF'
apply plugin: 'java'

dependencies {
  // Debian's JUnit jars: Debian's Gradle resolves a Maven repository only through its own packaging hooks.
  testCompile files('/usr/share/java/junit4.jar', '/usr/share/java/hamcrest-core.jar')
}

test {
  testLogging {
    events 'passed', 'failed'
    exceptionFormat 'full'
  }
}
EOF
  echo "rootProject.name = 'shop'" >"$d/settings.gradle"
  record gradle "$d" "" "gradle --no-daemon --offline --console=plain test"
fi
