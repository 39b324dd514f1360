package io.echomq.web.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A headless Chromium for the console tests: the system's {@code chromium} and {@code chromedriver}
 * named explicitly (so Selenium Manager never tries to download anything), a fresh profile under
 * {@code target/}, no background network. A missing browser fails the tests (it never skips them):
 * install the {@code chromium} and {@code chromium-driver} packages, or name the binaries with
 * {@code -Dconsole.chromium=…} / {@code -Dconsole.chromedriver=…}.
 */
final class ConsoleBrowser {

    private ConsoleBrowser() {
    }

    static ChromeDriver start(Path targetDirectory) {
        Path chromium = find("console.chromium", "chromium", "chromium-browser", "google-chrome")
                .orElseThrow(() -> new IllegalStateException("no Chromium found (looked for chromium, chromium-browser, google-chrome"
                        + " on PATH): install the chromium package, or set -Dconsole.chromium=<binary>"));
        Path driver = find("console.chromedriver", "chromedriver")
                .orElseThrow(() -> new IllegalStateException("no chromedriver found on PATH: install the chromium-driver package,"
                        + " or set -Dconsole.chromedriver=<binary>"));
        Path profile;
        try {
            Files.createDirectories(targetDirectory);
            profile = Files.createTempDirectory(targetDirectory, "chromium-profile-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-extensions", "--disable-features=Translate,MediaRouter,OptimizationHints",
                "--force-color-profile=srgb", "--hide-scrollbars", "--lang=en-US",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver.toFile())
                .usingAnyFreePort()
                .withLogFile(targetDirectory.resolve("chromedriver.log").toFile())
                .build();
        ChromeDriver browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1280, 900));
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return browser;
    }

    /** Saves what the browser shows as {@code <directory>/<name>.png}; returns the file. */
    static Path screenshot(ChromeDriver browser, Path directory, String name) {
        try {
            Files.createDirectories(directory);
            Path file = directory.resolve(name + ".png");
            Files.write(file, browser.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<Path> find(String property, String... names) {
        String configured = System.getProperty(property);
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("-D" + property + "=" + configured + " is not an executable file");
            }
            return Optional.of(path);
        }
        String pathVariable = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String name : names) {
            Optional<Path> found = Stream.of(pathVariable.split(File.pathSeparator))
                    .filter(dir -> !dir.isBlank())
                    .map(dir -> Path.of(dir, name))
                    .filter(Files::isExecutable)
                    .findFirst();
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }
}
